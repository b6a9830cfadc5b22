import { randomUUID } from 'node:crypto';
import type { CallStatus, Params } from '../events/catalog.js';
import type { NewEvent } from '../events/envelope.js';
import type { EventLog } from '../events/log.js';
import { FactorlyError, messageOf } from './base/errors.js';
import { didYouMean } from './base/suggest.js';
import type { BootRecord } from './boot-record.js';
import { CallContext, STOP_GRACE_MS } from './call-context.js';
import { CallRecord } from './call-record.js';
import type { OutputProcessor, SecretBackend } from './contracts/extensions.js';
import type { CallOutcome, CallRequest } from './contracts/gateway.js';
import type { SecretScope, ToolDefinition, ToolProvider, ToolResult } from './contracts/tool.js';
import { validateParams } from './params.js';
import { definedOnly, processResult } from './process-output.js';
import { unknownTool } from './redact.js';
import type { ToolRegistry } from './registry.js';
import { KernelPhase, type Lifecycle } from './lifecycle.js';
import { hydrateParams } from './secret-scope.js';
import type { ShadowGate } from './shadow-gate.js';
import type { KeyedSlot, OrderedSlot } from './slots.js';
import type { LogBounds } from './stored-text.js';

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
  /** The config's `log:` bounds, as currently loaded. */
  bounds: () => LogBounds;
  /** Calls are taken from Ready until the kernel has stopped (inner calls of calls in flight while it stops included). */
  lifecycle?: Pick<Lifecycle, 'require'>;
}

/** One call on its way through the pipeline. */
interface Flight {
  log: EventLog;
  context: CallContext;
  record: CallRecord;
  request: CallRequest;
  started: number;
}

/**
 * The call pipeline of DESIGN.md §4: resolve → validate/coerce → record → shadow rules → provider
 * → output processing → record completion → answer. Every interface and every inner call uses it;
 * an inner call joins its caller's call tree (CallContext) and the caller completes after it.
 */
export class CallPipeline {
  constructor(private readonly parts: PipelineParts) {}

  async call(request: CallRequest): Promise<CallOutcome> {
    this.parts.lifecycle?.require(`calling "${request.tool}"`, KernelPhase.Ready);
    const started = performance.now();
    const callId = randomUUID();
    // Made before anything is awaited, so sibling calls take their places in their caller's budget in call order.
    const context = request.parent
      ? CallContext.adopt(request.parent).child(callId)
      : CallContext.root(callId, { backends: this.parts.backends, standing: this.parts.standing }, request.signal);
    const work = this.run(context, request, started);
    context.parent?.track(work);
    try {
      return await work;
    } finally {
      context.close();
    }
  }

  private async run(context: CallContext, request: CallRequest, started: number): Promise<CallOutcome> {
    // Nothing runs unrecorded: a log that cannot be opened or written refuses the call up front.
    let log: EventLog;
    try {
      log = this.parts.log();
      await this.parts.boot.ensure(log);
    } catch (error) {
      return unrecorded(
        context,
        `refused before the tool ran: the call could not be recorded (${writeFailure(error)})`,
        started,
      );
    }
    const tool = this.parts.registry.get(request.tool, request.sessionId);
    const record = new CallRecord(
      context,
      request,
      tool ?? unknownTool(request.tool),
      () => this.parts.processors.list(),
      this.parts.bounds(),
    );
    const flight: Flight = { log, context, record, request, started };
    // The call's tree stopped before this call could start: it is recorded, and never runs.
    if (context.signal.aborted) return this.stopped(flight, await record.opening());
    if (!tool) {
      const hint = didYouMean(
        request.tool,
        this.parts.registry.visible().map((t) => t.name),
      );
      return this.block(flight, await record.opening(), 'unknown_tool', `tool "${request.tool}" not found${hint}`);
    }
    const validated = validateParams(tool.parameters, request.params);
    if (validated.problems.length > 0) {
      return this.block(
        flight,
        await record.opening(),
        'invalid',
        `parameter validation failed for "${tool.name}": ${validated.problems.join('; ')}`,
      );
    }
    const source = this.parts.providers.get(tool.type)?.sourceOf?.(tool, validated.params);
    const coerced = validated.changed ? { original: request.params, coerced: validated.params } : undefined;
    const opening = [
      ...(source ? [await record.source(source)] : []),
      ...(await record.opening({ sourceSha: source?.sha, engine: source?.engine, coerced })),
    ];
    const { agentId, sessionId, iface, client } = request;
    const gateRequest = {
      callId: context.callId,
      tool,
      params: validated.params,
      iface,
      agentId,
      sessionId,
      parentId: context.parent?.callId,
      client,
      callers: context.callers(),
      signal: context.signal,
    };
    // The shadow gate writes call.requested together with its decisions, before execution.
    let verdict: Awaited<ReturnType<ShadowGate['check']>>;
    try {
      verdict = await this.parts.shadow.check(log, gateRequest, opening, record.redactor);
    } catch (error) {
      return unrecorded(
        context,
        `refused before the tool ran: the call could not be recorded (${writeFailure(error)})`,
        started,
      );
    }
    // A confirmation cut short by the tree stopping is a cancellation, not a refusal.
    const abandoned = verdict.blocked && verdict.rule === 'confirm' && context.signal.aborted;
    if (verdict.blocked && !abandoned) return this.block(flight, [], verdict.decision, verdict.reason, verdict.rule);
    if (verdict.blocked || context.signal.aborted) return this.stopped(flight, []);
    const result = await this.execute(flight, tool, validated.params);
    const stopped = stoppedStatus(context, result);
    await context.settle();
    // Shadow warnings (a possible loop) reach the caller beside the tool's own diagnostics.
    const warned = verdict.warnings.map((warning) => `warning: ${warning}\n`).join('');
    if (warned) result.diagnostics = warned + (result.diagnostics ?? '');
    return this.complete(flight, tool, stoppedResult(result, stopped, context), validated.params, stopped);
  }

  private async execute({ context, request }: Flight, tool: ToolDefinition, params: Params): Promise<ToolResult> {
    const provider = this.parts.providers.get(tool.type);
    if (!provider) return { output: '', error: `no provider for tool "${tool.name}" (type ${tool.type})`, exitCode: 1 };
    const timeoutMs = tool.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    context.start(tool, timeoutMs);
    try {
      // Hydrated values go to the provider only: the events above already hold the params as sent.
      const hydrated = await hydrateParams(tool.parameters, params, context.secrets, this.parts.backends);
      const { iface, agentId, sessionId, client } = request;
      const work = provider.execute({
        callId: context.callId,
        rootId: context.rootId,
        parentId: context.parent?.callId,
        tool,
        params: hydrated,
        iface,
        agentId,
        sessionId,
        timeoutMs,
        signal: context.signal,
        secrets: context.secrets,
        context,
        client,
      });
      const unstoppable = (): ToolResult => ({
        output: '',
        error: `"${tool.name}" did not stop within ${STOP_GRACE_MS / 1000}s (${context.stopReason()})`,
        exitCode: context.cancelled ? 130 : 124,
      });
      return await context.bounded(work, unstoppable);
    } catch (error) {
      return { output: '', error: `executing "${tool.name}": ${messageOf(error)}`, exitCode: 1 };
    }
  }

  private async complete(
    flight: Flight,
    tool: ToolDefinition,
    result: ToolResult,
    params: Params,
    stopped?: Stopped,
  ): Promise<CallOutcome> {
    const { log, context, record } = flight;
    const processed = await processResult(this.parts.processors.list(), result, {
      tool,
      secrets: context.scrubList(),
      params,
    });
    const { output, error, diagnostics, content, meta, structuredContent } = processed;
    const durationMs = Math.round(performance.now() - flight.started);
    const status = stopped ?? (result.exitCode !== 0 || error ? 'error' : 'success');
    const bytes = processed.processed
      ? {
          originalBytes: Buffer.byteLength(processed.originalOutput, 'utf8'),
          processedBytes: Buffer.byteLength(output, 'utf8'),
        }
      : {};
    const usage = result.usage;
    const stored = record.stored(output, error, diagnostics);
    const lost = await appended(log, [
      {
        type: 'call.completed',
        data: { callId: context.callId, status, exitCode: result.exitCode, ...stored, durationMs, usage, ...bytes },
      },
    ]);
    // The tool ran: the caller hears that its outcome is not on record (the log marks the call
    // interrupted once it can be written), and gets no output that the log does not hold.
    if (lost)
      return unrecorded(
        context,
        `the tool ran, but its outcome could not be recorded (${lost}); the call is marked interrupted once the log can be written`,
        flight.started,
      );
    const extras = { content, meta, structuredContent };
    return {
      callId: context.callId,
      status,
      output,
      error,
      diagnostics,
      exitCode: result.exitCode,
      durationMs,
      ...definedOnly(extras),
    };
  }

  /** A call refused before it ran: `blockedBy` is the stage or decision (as recorded), `rule` the rule's name. */
  private async block(
    flight: Flight,
    before: NewEvent[],
    blockedBy: string,
    reason: string,
    rule = blockedBy,
  ): Promise<CallOutcome> {
    const { log, context, record } = flight;
    const error = await record.text(reason);
    const durationMs = Math.round(performance.now() - flight.started);
    const stored = record.stored('', error, undefined);
    const refusal = await appended(log, [
      ...before,
      {
        type: 'call.completed',
        data: { callId: context.callId, status: 'blocked', exitCode: 1, ...stored, blockedBy, durationMs },
      },
    ]);
    if (refusal)
      return unrecorded(context, `${error}; and the refusal could not be recorded (${refusal})`, flight.started);
    return { callId: context.callId, status: 'blocked', output: '', error, exitCode: 1, durationMs, blockedBy: rule };
  }

  /** A call whose tree stopped before it could run (its caller cancelled, a deadline passed): recorded as cancelled. */
  private async stopped(flight: Flight, before: NewEvent[]): Promise<CallOutcome> {
    const { log, context, record } = flight;
    const error = await record.text(`cancelled before it ran: ${context.stopReason()}`);
    const durationMs = Math.round(performance.now() - flight.started);
    const stored = record.stored('', error, undefined);
    const refusal = await appended(log, [
      ...before,
      {
        type: 'call.completed',
        data: { callId: context.callId, status: 'cancelled', exitCode: 130, ...stored, durationMs },
      },
    ]);
    if (refusal) return unrecorded(context, `${error}; and that could not be recorded (${refusal})`, flight.started);
    return { callId: context.callId, status: 'cancelled', output: '', error, exitCode: 130, durationMs };
  }
}

type Stopped = Extract<CallStatus, 'cancelled' | 'timeout'>;

/** The answer to a call the log could not take: an error, and no output the log does not hold. */
function unrecorded(context: CallContext, error: string, started: number): CallOutcome {
  return {
    callId: context.callId,
    status: 'error',
    output: '',
    error,
    exitCode: 1,
    durationMs: Math.round(performance.now() - started),
  };
}

/**
 * Why the log could not take a write, for the caller's answer. A file that is not a log at all
 * (`LOG_UNREADABLE`) and anything that is not a failed write stay the errors they are.
 */
function writeFailure(error: unknown): string {
  if (FactorlyError.isInstance(error) && error.code === 'LOG_WRITE_FAILED') return error.message;
  throw error;
}

/** Appends `events`; undefined when they are recorded, else why they could not be. */
async function appended(log: EventLog, events: NewEvent[]): Promise<string | undefined> {
  try {
    await log.append(events);
    return undefined;
  } catch (error) {
    return writeFailure(error);
  }
}

/**
 * What stopped a call that did not finish well: `cancelled` when it was stopped from outside (its
 * caller, or the call tree it belongs to), `timeout` when its own deadline passed. A call that
 * finished well is a success even when it was stopped at the same moment.
 */
function stoppedStatus(context: CallContext, result: ToolResult): Stopped | undefined {
  if (result.exitCode === 0 && !result.error) return undefined;
  if (context.cancelled) return 'cancelled';
  return context.timedOut ? 'timeout' : undefined;
}

/**
 * A stopped call keeps its provider's exit code (124 and 130 for commands and upstream calls, 2 for a
 * script), with 124 or 130 when the provider gave none; a cancelled one says what stopped it.
 */
function stoppedResult(result: ToolResult, stopped: Stopped | undefined, context: CallContext): ToolResult {
  if (stopped === 'timeout')
    return {
      ...result,
      exitCode: result.exitCode || 124,
      error: result.error || `timed out after ${(context.tool?.timeoutMs ?? DEFAULT_TIMEOUT_MS) / 1000}s`,
    };
  if (stopped === 'cancelled')
    return { ...result, exitCode: result.exitCode || 130, error: `cancelled: ${context.stopReason()}` };
  return result;
}
