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
    const log = this.parts.log();
    await this.parts.boot.ensure(log);
    const callId = randomUUID();
    const opened = this.requested(callId, request);
    const tool = this.parts.registry.get(request.tool, request.sessionId);
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
    const verdict = await this.parts.shadow.check(log, { callId, tool, params: validated.params, iface, agentId, sessionId, parentId, client: request.client }, opening);
    if (verdict.blocked) return this.block(log, [], callId, verdict.rule, verdict.reason, started);
    const secrets = new CallSecretScope(this.parts.backends);
    const { result, stopped } = await this.execute(tool, callId, request, validated.params, secrets);
    // Shadow warnings (a possible loop) reach the caller beside the tool's own diagnostics.
    const warned = verdict.warnings.map((warning) => `warning: ${warning}\n`).join('');
    if (warned) result.diagnostics = warned + (result.diagnostics ?? '');
    const standing = this.parts.standing?.resolved();
    const scrub = standing?.size ? new Map([...standing, ...secrets.resolved()]) : secrets.resolved();
    return this.complete(log, callId, tool, stoppedResult(result, stopped, tool), scrub, validated.params, started, stopped);
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

  /** Runs the provider under the tool's deadline and the caller's cancellation, and says which of them stopped it, if one did. */
  private async execute(tool: ToolDefinition, callId: string, request: CallRequest, params: Params, secrets: CallSecretScope): Promise<{ result: ToolResult; stopped?: Stopped }> {
    const provider = this.parts.providers.get(tool.type);
    if (!provider) return { result: { output: '', error: `no provider for tool "${tool.name}" (type ${tool.type})`, exitCode: 1 } };
    const timeoutMs = tool.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const deadline = AbortSignal.timeout(timeoutMs);
    const deadlineAt = performance.now() + timeoutMs;
    const signal = request.signal ? AbortSignal.any([deadline, request.signal]) : deadline;
    let result: ToolResult;
    try {
      // Hydrated values go to the provider only: the events above already hold the params as sent.
      const hydrated = await hydrateParams(tool.parameters, params, secrets);
      result = await provider.execute({
        callId, rootId: request.rootId ?? callId, parentId: request.parentId, tool, params: hydrated, iface: request.iface,
        agentId: request.agentId, sessionId: request.sessionId, timeoutMs, signal, secrets, client: request.client,
      });
    } catch (error) {
      result = { output: '', error: `executing "${tool.name}": ${messageOf(error)}`, exitCode: 1 };
    }
    // A call that finished well is a success even when the caller gave up at the same moment.
    if (result.exitCode === 0 && !result.error) return { result };
    // The caller's cancellation is read first: it aborts the combined signal too, with its own reason.
    if (request.signal?.aborted) return { result, stopped: 'cancelled' };
    // A provider's own watchdog on the same timeout may answer a moment before the deadline's timer
    // runs; the deadline has passed all the same (timers may fire up to a millisecond early).
    return deadline.aborted || performance.now() >= deadlineAt - 1 ? { result, stopped: 'timeout' } : { result };
  }

  private async complete(
    log: EventLog,
    callId: string,
    tool: ToolDefinition,
    result: ToolResult,
    secrets: ReadonlyMap<string, string>,
    params: Params,
    started: number,
    stopped?: Stopped,
  ): Promise<CallOutcome> {
    const processed = await processResult(this.parts.processors.list(), result, { tool, secrets, params });
    const { output, error, diagnostics, content, meta, structuredContent } = processed;
    const durationMs = Math.round(performance.now() - started);
    const status = stopped ?? (result.exitCode !== 0 || error ? 'error' : 'success');
    const bytes = processed.processed ? { originalBytes: Buffer.byteLength(processed.originalOutput, 'utf8'), processedBytes: Buffer.byteLength(output, 'utf8') } : {};
    const usage = result.usage;
    await log.append([{ type: 'call.completed', data: { callId, status, exitCode: result.exitCode, output: storedText(output), error, diagnostics, durationMs, usage, ...bytes } }]);
    const extras = { content, meta, structuredContent };
    return { callId, status, output, error, diagnostics, exitCode: result.exitCode, durationMs, ...definedOnly(extras) };
  }

  private async block(log: EventLog, before: NewEvent[], callId: string, blockedBy: string, error: string, started: number): Promise<CallOutcome> {
    const durationMs = Math.round(performance.now() - started);
    await log.append([
      ...before,
      { type: 'call.completed', data: { callId, status: 'blocked', exitCode: 1, output: storedText(''), error, blockedBy, durationMs } },
    ]);
    return { callId, status: 'blocked', output: '', error, exitCode: 1, durationMs };
  }
}

type Stopped = 'cancelled' | 'timeout';

/**
 * A call the caller cancelled or the deadline stopped is recorded as such (its status); the exit code
 * and error stay its provider's (124 and 130 for commands and upstream calls, 2 for a script), with
 * 124 or 130 and a plain reason when the provider gave none.
 */
function stoppedResult(result: ToolResult, stopped: Stopped | undefined, tool: ToolDefinition): ToolResult {
  if (stopped === 'timeout') return { ...result, exitCode: result.exitCode || 124, error: result.error || `timed out after ${(tool.timeoutMs ?? DEFAULT_TIMEOUT_MS) / 1000}s` };
  if (stopped === 'cancelled') return { ...result, exitCode: result.exitCode || 130, error: result.error || 'cancelled by the caller' };
  return result;
}
