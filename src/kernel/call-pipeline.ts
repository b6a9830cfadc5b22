import { randomUUID } from 'node:crypto';
import type { Interface, Params } from '../events/catalog.js';
import type { NewEvent } from '../events/envelope.js';
import type { EventLog } from '../events/log.js';
import { messageOf } from './base/errors.js';
import { didYouMean } from './base/suggest.js';
import type { BootRecord } from './boot-record.js';
import type { OutputProcessor } from './contracts/extensions.js';
import type { SecretScope, ToolDefinition, ToolProvider, ToolResult } from './contracts/tool.js';
import { validateParams } from './params.js';
import type { ToolRegistry } from './registry.js';
import type { KeyedSlot, OrderedSlot } from './slots.js';
import { storedText } from './stored-text.js';
import type { ShadowGate } from './shadow-gate.js';
import type { CallOutcome, CallRequest } from './contracts/gateway.js';
import type { SecretBackend } from './contracts/extensions.js';
import { CallSecretScope, hydrateParams } from './secret-scope.js';
import { definedOnly, processResult } from './process-output.js';

export type { CallOutcome, CallRequest } from './contracts/gateway.js';

export const DEFAULT_TIMEOUT_MS = 30_000;

export interface PipelineParts {
  log: () => EventLog;
  boot: BootRecord;
  registry: ToolRegistry;
  providers: KeyedSlot<ToolProvider>;
  processors: OrderedSlot<OutputProcessor>;
  backends: KeyedSlot<SecretBackend>;
  /** Secrets providers resolved outside any call (see KernelTokens.StandingSecrets): scrubbed from every call. */
  standing?: SecretScope;
  shadow: ShadowGate;
}

/**
 * The call pipeline of DESIGN.md §4: resolve → validate/coerce → record → shadow rules → provider
 * → output processing → record completion → answer. Every interface and every inner call uses it.
 */
export class CallPipeline {
  constructor(private readonly parts: PipelineParts) {}

  async call(request: CallRequest): Promise<CallOutcome> {
    const started = performance.now();
    const callId = randomUUID();
    // Nothing runs unrecorded: a log that cannot be opened or written refuses the call up front.
    let log: EventLog;
    try {
      log = this.parts.log();
      await this.parts.boot.ensure(log);
    } catch (error) {
      return unrecorded(callId, `refused before the tool ran: the call could not be recorded (${messageOf(error)})`, started);
    }
    const opened = this.requested(callId, request);
    const tool = this.parts.registry.get(request.tool);
    if (!tool) {
      const hint = didYouMean(request.tool, this.parts.registry.visible().map((t) => t.name));
      return this.block(log, [opened], callId, 'unknown_tool', `tool "${request.tool}" not found${hint}`, started);
    }
    const validated = validateParams(tool.parameters, request.params);
    if (validated.problems.length > 0) {
      const message = `parameter validation failed for "${tool.name}": ${validated.problems.join('; ')}`;
      return this.block(log, [opened], callId, 'invalid', message, started);
    }
    const coerced: NewEvent[] = validated.changed
      ? [{ type: 'call.params_coerced', data: { callId, original: request.params, coerced: validated.params } }]
      : [];
    const { agentId, sessionId, parentId, iface } = request;
    // The shadow gate writes call.requested together with its decisions, before execution.
    const opening = [...this.sourceEvents(tool, validated.params, opened), opened, ...coerced];
    let verdict: Awaited<ReturnType<ShadowGate['check']>>;
    try {
      verdict = await this.parts.shadow.check(log, { callId, tool, params: validated.params, iface, agentId, sessionId, parentId, client: request.client }, opening);
    } catch (error) {
      return unrecorded(callId, `refused before the tool ran: the call could not be recorded (${messageOf(error)})`, started);
    }
    if (verdict.blocked) return this.block(log, [], callId, verdict.rule, verdict.reason, started);
    const secrets = new CallSecretScope(this.parts.backends);
    const result = await this.execute(tool, callId, request, validated.params, secrets);
    // Shadow warnings (a possible loop) reach the caller beside the tool's own diagnostics.
    const warned = verdict.warnings.map((warning) => `warning: ${warning}\n`).join('');
    if (warned) result.diagnostics = warned + (result.diagnostics ?? '');
    const standing = this.parts.standing?.resolved();
    const scrub = standing?.size ? new Map([...standing, ...secrets.resolved()]) : secrets.resolved();
    return this.complete(log, callId, tool, result, scrub, validated.params, started);
  }

  /**
   * For a call that runs source code: stamps its digest on `call.requested` and records the source
   * itself once (the event id is derived from the digest, so appending it again is a no-op).
   */
  private sourceEvents(tool: ToolDefinition, params: Params, opened: NewEvent): NewEvent[] {
    const source = this.parts.providers.get(tool.type)?.sourceOf?.(tool, params);
    if (!source || opened.type !== 'call.requested') return [];
    opened.data.sourceSha = source.sha;
    return [{ id: `source-${source.sha}`, type: 'source.recorded', data: { sha: source.sha, language: source.language, source: source.source } }];
  }

  private requested(callId: string, request: CallRequest): NewEvent {
    const { tool, params, iface, agentId, sessionId, parentId, replayedFrom } = request;
    return { type: 'call.requested', data: { callId, rootId: request.rootId ?? callId, parentId, tool, params, iface, agentId, sessionId, replayedFrom } };
  }

  private async execute(tool: ToolDefinition, callId: string, request: CallRequest, params: Params, secrets: CallSecretScope): Promise<ToolResult> {
    const provider = this.parts.providers.get(tool.type);
    if (!provider) return { output: '', error: `no provider for tool "${tool.name}" (type ${tool.type})`, exitCode: 1 };
    const timeoutMs = tool.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    try {
      // Hydrated values go to the provider only: the events above already hold the params as sent.
      const hydrated = await hydrateParams(tool.parameters, params, secrets);
      return await provider.execute({
        callId, rootId: request.rootId ?? callId, parentId: request.parentId, tool, params: hydrated, iface: request.iface,
        agentId: request.agentId, sessionId: request.sessionId, timeoutMs, signal: callSignal(timeoutMs, request.signal), secrets, client: request.client,
      });
    } catch (error) {
      return { output: '', error: `executing "${tool.name}": ${messageOf(error)}`, exitCode: 1 };
    }
  }

  private async complete(
    log: EventLog,
    callId: string,
    tool: ToolDefinition,
    result: ToolResult,
    secrets: ReadonlyMap<string, string>,
    params: Params,
    started: number,
  ): Promise<CallOutcome> {
    const processed = await processResult(this.parts.processors.list(), result, { tool, secrets, params, format: result.outputFormat });
    const { output, error, diagnostics, structuredContent } = processed;
    const durationMs = Math.round(performance.now() - started);
    const status = result.exitCode !== 0 || error ? 'error' : 'success';
    const bytes = processed.processed ? { originalBytes: Buffer.byteLength(result.output, 'utf8'), processedBytes: Buffer.byteLength(output, 'utf8') } : {};
    const usage = result.usage;
    try {
      await log.append([{ type: 'call.completed', data: { callId, status, exitCode: result.exitCode, output: storedText(output), error, diagnostics, durationMs, usage, ...bytes } }]);
    } catch (failure) {
      // The tool ran: the caller hears that its outcome is not on record (the log marks the call
      // interrupted once it can be written), and gets no output that the log does not hold.
      return unrecorded(callId, `the tool ran, but its outcome could not be recorded (${messageOf(failure)}); the call is marked interrupted once the log can be written`, started);
    }
    const extras = { outputFormat: result.outputFormat, structuredContent };
    return { callId, status, output, error, diagnostics, exitCode: result.exitCode, durationMs, ...definedOnly(extras) };
  }

  private async block(log: EventLog, before: NewEvent[], callId: string, blockedBy: string, error: string, started: number): Promise<CallOutcome> {
    const durationMs = Math.round(performance.now() - started);
    try {
      await log.append([
        ...before,
        { type: 'call.completed', data: { callId, status: 'blocked', exitCode: 1, output: storedText(''), error, blockedBy, durationMs } },
      ]);
    } catch (failure) {
      return unrecorded(callId, `${error}; and the refusal could not be recorded (${messageOf(failure)})`, started);
    }
    return { callId, status: 'blocked', output: '', error, exitCode: 1, durationMs };
  }
}

/** The answer to a call the log could not take: an error, and no output the log does not hold. */
function unrecorded(callId: string, error: string, started: number): CallOutcome {
  return { callId, status: 'error', output: '', error, exitCode: 1, durationMs: Math.round(performance.now() - started) };
}

/** The tool's deadline, and the caller's cancellation when it has one: whichever comes first stops the call. */
function callSignal(timeoutMs: number, caller: AbortSignal | undefined): AbortSignal {
  const deadline = AbortSignal.timeout(timeoutMs);
  return caller ? AbortSignal.any([deadline, caller]) : deadline;
}
