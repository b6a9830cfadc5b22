import { randomUUID } from 'node:crypto';
import type { Params } from '../events/catalog.js';
import type { NewEvent } from '../events/envelope.js';
import type { EventLog } from '../events/log.js';
import { messageOf } from '../base/errors.js';
import { didYouMean } from '../base/suggest.js';
import type { BootRecord } from './boot-record.js';
import {
  blocked,
  cancelledBeforeRun,
  completed,
  DEFAULT_TIMEOUT_MS,
  stoppedResult,
  stoppedStatus,
  unrecorded,
  writeFailure,
  type Flight,
} from './call-ending.js';
import { CallContext, STOP_GRACE_MS } from './call-context.js';
import { CallRecord } from './call-record.js';
import type { OutputProcessor, SecretBackend } from '../contracts/extensions.js';
import type { CallOutcome, CallRequest, CatalogFilter } from '../contracts/gateway.js';
import type { CallSource, SecretScope, ToolDefinition, ToolProvider, ToolResult } from '../contracts/tool.js';
import { validateParams, type ValidatedParams } from '../config/params.js';
import { unknownTool } from '../config/tool-definition.js';
import type { ToolRegistry } from './registry.js';
import { KernelPhase, type Lifecycle } from './lifecycle.js';
import { toolSecretReferences } from '../config/secret-references.js';
import { hydrateParams, reachableSecretReferences } from './secret-scope.js';
import type { GateRequest, GateResult, ShadowGate } from './shadow-gate.js';
import type { KeyedRegistry, OrderedRegistry } from './registries.js';
import type { LogBounds } from '../events/capped-text.js';

export type { CallOutcome, CallRequest } from '../contracts/gateway.js';

export interface PipelineParts {
  log: () => EventLog;
  boot: BootRecord;
  registry: ToolRegistry;
  providers: KeyedRegistry<ToolProvider>;
  processors: OrderedRegistry<OutputProcessor>;
  backends: KeyedRegistry<SecretBackend>;
  /** Secrets providers resolved outside any call (see KernelTokens.ConnectionSecrets): scrubbed from every call. */
  connectionSecrets?: SecretScope;
  shadow: ShadowGate;
  /** Told of every tool a call resolves, before the call's first event (see CatalogFilter.resolved). */
  filters: OrderedRegistry<CatalogFilter>;
  /** The config's `log:` bounds, as currently loaded. */
  bounds: () => LogBounds;
  /** Calls are taken from Ready until the kernel has stopped (inner calls of calls in flight while it stops included). */
  lifecycle?: Pick<Lifecycle, 'require'>;
}

/**
 * The call pipeline (docs/architecture.md, "One call through the pipeline"): resolve →
 * validate/coerce → record → shadow rules → provider → output processing → record completion →
 * answer. Every interface and every inner call uses it;
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
      : CallContext.root(
          callId,
          { backends: this.parts.backends, connectionSecrets: this.parts.connectionSecrets },
          request.signal,
        );
    const work = this.run(context, request, started);
    context.parent?.track(work);
    try {
      return await work;
    } finally {
      context.close();
    }
  }

  /** One call's steps: open the log, resolve the tool, learn its secrets, validate, record the opening, gate, execute, end. */
  private async run(context: CallContext, request: CallRequest, started: number): Promise<CallOutcome> {
    let log: EventLog;
    const tool = this.parts.registry.get(request.tool, request.sessionId);
    try {
      log = await this.openLog();
      if (tool) for (const filter of this.parts.filters.list()) await filter.resolved?.(tool, request.sessionId);
    } catch (error) {
      return refusedUnrecorded(context, error, started);
    }
    const flight = this.flightOf(log, context, request, tool, started);
    // The values the call could resolve are known before its params are written (see learn).
    if (tool) await this.learn(context, tool, request.sessionId);
    // The call's tree stopped before this call could start: it is recorded, and never runs.
    if (context.stopped) return cancelledBeforeRun(flight, await flight.record.opening());
    if (!tool) return this.refuseUnknown(flight);
    const validated = validateParams(tool.parameters, request.params);
    if (validated.problems.length > 0) return refuseInvalid(flight, tool, validated.problems);
    const source = this.parts.providers.get(tool.type)?.sourceOf?.(tool, validated.params);
    const opening = await this.openingOf(flight, validated, source);
    const gateRequest = { ...gateRequestOf(flight, tool, validated.params), sourceSha: source?.sha };
    // The shadow gate writes call.requested together with its decisions, before execution.
    let verdict: GateResult;
    try {
      verdict = await this.parts.shadow.check(log, gateRequest, opening, flight.record.redactor);
    } catch (error) {
      return refusedUnrecorded(context, error, started);
    }
    // A confirmation cut short by the tree stopping is a cancellation, not a refusal.
    const abandoned = verdict.blocked && verdict.rule === 'confirm' && context.stopped;
    if (verdict.blocked && !abandoned) return blocked(flight, [], verdict.decision, verdict.reason, verdict.rule);
    if (verdict.blocked || context.stopped) return cancelledBeforeRun(flight, []);
    return this.runTool(flight, tool, validated.params, verdict.warnings);
  }

  /**
   * Reads the secrets a call of `tool` could resolve: its own config's, and for a tool that calls other
   * tools (a script) those of every tool it could call, from the backends cheap to read ahead. The
   * latter once per call tree: an inner script's tools were learnt before the root's tool ran.
   */
  private async learn(context: CallContext, tool: ToolDefinition, sessionId: string | undefined): Promise<void> {
    const own = toolSecretReferences(tool);
    const tree = context.shared;
    if (!this.parts.providers.get(tool.type)?.callsOtherTools || tree.learntReachable)
      return context.secrets.learn(own);
    const tools = this.parts.registry.catalogueOf(sessionId);
    await context.secrets.learn(new Set([...own, ...reachableSecretReferences(tools, this.parts.backends)]));
    tree.learntReachable = true;
  }

  /** Nothing runs unrecorded: a log that cannot be opened or written (the boot record first) refuses the call up front. */
  private async openLog(): Promise<EventLog> {
    const log = this.parts.log();
    await this.parts.boot.ensure(log);
    return log;
  }

  /** The call on its way: its record is of the tool resolved, or of the name asked for when none matched. */
  private flightOf(
    log: EventLog,
    context: CallContext,
    request: CallRequest,
    tool: ToolDefinition | undefined,
    started: number,
  ): Flight {
    const record = new CallRecord(
      context,
      request,
      tool ?? unknownTool(request.tool),
      () => this.parts.processors.list(),
      this.parts.bounds(),
    );
    return { log, context, record, request, started };
  }

  /** No tool by that name: refused, naming the closest one the caller may see. */
  private async refuseUnknown(flight: Flight): Promise<CallOutcome> {
    const { request, record } = flight;
    const hint = didYouMean(
      request.tool,
      this.parts.registry.visible().map((t) => t.name),
    );
    return blocked(flight, await record.opening(), 'unknown_tool', `tool "${request.tool}" not found${hint}`);
  }

  /** The events the gate writes before its decisions: a script's source, call.requested, the params as coerced. */
  private async openingOf(flight: Flight, validated: ValidatedParams, source?: CallSource): Promise<NewEvent[]> {
    const { record, request } = flight;
    const coerced = validated.changed ? { original: request.params, coerced: validated.params } : undefined;
    return [
      ...(source ? [await record.source(source)] : []),
      ...(await record.opening({ sourceSha: source?.sha, engine: source?.engine, coerced })),
    ];
  }

  /** A call the gate let through: the tool runs, its inner calls settle, and its end is recorded. */
  private async runTool(
    flight: Flight,
    tool: ToolDefinition,
    params: Params,
    warnings: string[],
  ): Promise<CallOutcome> {
    const { context } = flight;
    const result = await this.execute(flight, tool, params);
    const stopped = stoppedStatus(context, result);
    await context.settle();
    // Shadow warnings (a possible loop) reach the caller beside the tool's own diagnostics.
    const warned = warnings.map((warning) => `warning: ${warning}\n`).join('');
    if (warned) result.diagnostics = warned + (result.diagnostics ?? '');
    return completed(
      flight,
      this.parts.processors.list(),
      tool,
      stoppedResult(result, stopped, context),
      params,
      stopped,
    );
  }

  private async execute({ context, request }: Flight, tool: ToolDefinition, params: Params): Promise<ToolResult> {
    const provider = this.parts.providers.get(tool.type);
    if (!provider) return { output: '', error: `no provider for tool "${tool.name}" (type ${tool.type})`, exitCode: 1 };
    const timeoutMs = tool.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    context.start(tool, timeoutMs);
    try {
      // Hydrated values go to the provider only: the events above already hold the params as sent.
      const hydrated = await hydrateParams(tool.parameters, params, context.secrets);
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
}

/** The log could not take the call's events: it is refused before the tool ran, and says why. */
function refusedUnrecorded(context: CallContext, error: unknown, started: number): CallOutcome {
  return unrecorded(
    context,
    `refused before the tool ran: the call could not be recorded (${writeFailure(error)})`,
    started,
  );
}

/** Params that do not fit the tool's declared parameters: refused, naming each problem. */
async function refuseInvalid(flight: Flight, tool: ToolDefinition, problems: string[]): Promise<CallOutcome> {
  return blocked(
    flight,
    await flight.record.opening(),
    'invalid',
    `parameter validation failed for "${tool.name}": ${problems.join('; ')}`,
  );
}

/** What the shadow rules decide on: the call, its params as validated, and its place in the call tree. */
function gateRequestOf({ context, request }: Flight, tool: ToolDefinition, params: Params): GateRequest {
  const { agentId, sessionId, iface, client } = request;
  return {
    callId: context.callId,
    tool,
    params,
    iface,
    agentId,
    sessionId,
    parentId: context.parent?.callId,
    client,
    callers: context.callers(),
    signal: context.signal,
  };
}
