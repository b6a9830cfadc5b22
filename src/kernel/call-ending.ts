import type { CallStatus, Params } from '../events/catalog.js';
import type { NewEvent } from '../events/envelope.js';
import type { EventLog } from '../events/log.js';
import { FactorlyError } from '../base/errors.js';
import type { CallContext } from './call-context.js';
import type { CallRecord } from './call-record.js';
import type { OutputProcessor } from '../contracts/extensions.js';
import type { CallOutcome, CallRequest } from '../contracts/gateway.js';
import type { ToolDefinition, ToolResult } from '../contracts/tool.js';
import { definedOnly, processResult } from './process-output.js';

// How a call ends, as the log records it and the caller hears it: completed, refused, cancelled
// before it ran, or not on record (the log could not take it). The pipeline (call-pipeline.ts) runs the call.

export const DEFAULT_TIMEOUT_MS = 30_000;

/** One call on its way through the pipeline. */
export interface Flight {
  log: EventLog;
  context: CallContext;
  record: CallRecord;
  request: CallRequest;
  started: number;
}

/** A call whose tool ran: its output processed, `call.completed` appended, and only then the answer. */
export async function completed(
  flight: Flight,
  processors: readonly OutputProcessor[],
  tool: ToolDefinition,
  result: ToolResult,
  params: Params,
  stopped?: Stopped,
): Promise<CallOutcome> {
  const { log, context, record } = flight;
  const processed = await processResult(processors, result, {
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
export async function blocked(
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
export async function cancelledBeforeRun(flight: Flight, before: NewEvent[]): Promise<CallOutcome> {
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

export type Stopped = Extract<CallStatus, 'cancelled' | 'timeout'>;

/** The answer to a call the log could not take: an error, and no output the log does not hold. */
export function unrecorded(context: CallContext, error: string, started: number): CallOutcome {
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
export function writeFailure(error: unknown): string {
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
export function stoppedStatus(context: CallContext, result: ToolResult): Stopped | undefined {
  if (result.exitCode === 0 && !result.error) return undefined;
  if (context.cancelled) return 'cancelled';
  return context.timedOut ? 'timeout' : undefined;
}

/**
 * A stopped call exits as its status says, whatever its provider answered (a script engine's 2, a
 * command's signal): 124 for a timeout, 130 for a cancellation, as `factorly call` documents; a
 * cancelled one says what stopped it.
 */
export function stoppedResult(result: ToolResult, stopped: Stopped | undefined, context: CallContext): ToolResult {
  if (stopped === 'timeout')
    return {
      ...result,
      exitCode: 124,
      error: result.error || `timed out after ${(context.tool?.timeoutMs ?? DEFAULT_TIMEOUT_MS) / 1000}s`,
    };
  if (stopped === 'cancelled') return { ...result, exitCode: 130, error: `cancelled: ${context.stopReason()}` };
  return result;
}
