import { randomUUID } from 'node:crypto';
import { writeStderrLine } from '@factorly/text-kit';
import type {
  CallGateway,
  CatalogFilter,
  EventLog,
  ProjectionView,
  ToolCatalog,
  ToolDefinition,
  Unsubscribe,
} from 'factorly';
import type { PinSight } from './definition.js';
import { pinsProjection, type PinState } from './fold.js';
import { holds, observations, type Sighting } from './observe.js';

export interface GuardParts {
  sight: PinSight;
  log: () => EventLog;
  gateway: CallGateway;
  catalog: ToolCatalog;
}

const PIN_EVENTS = new Set(['tool.pinned', 'tool.held', 'tool.released', 'tool.pin_rejected']);

/**
 * The pins' catalogue filter. Every listing and every tool a call resolves is seen here: what the
 * log does not say yet is recorded (a first pin, a hold, a release), one observation at a time, and
 * a listing leaves out what it holds. A call waits for its observation, so its decision is taken on
 * the pins as they stand. While agents are served, pins recorded by other processes (a person
 * approving on the command line) reach the agents as a changed tool list.
 */
export class PinGuard implements CatalogFilter {
  readonly name = 'pins';
  private queue: Promise<void> = Promise.resolve();
  private following?: Unsubscribe;
  /** Ids of the pin events this process appended; another process's tell the agents their list changed. */
  private readonly ours = new Set<string>();

  constructor(private readonly parts: GuardParts) {}

  listed(tools: readonly ToolDefinition[], sessionId?: string): ToolDefinition[] {
    const view = this.view();
    const state = this.folded(view);
    const sightings = this.sightings(tools, sessionId);
    if (state && sessionId !== undefined) this.follow(view);
    if (!state || observations(sightings, state).length > 0)
      void this.observe(sightings, sessionId).catch((error: unknown) =>
        writeStderrLine('factorly: ', `could not record the tools' pins: ${(error as Error).message}`),
      );
    return tools.filter((_, index) => !holds(sightings[index], state));
  }

  async resolved(_tool: ToolDefinition, sessionId?: string): Promise<void> {
    const tools = this.parts.gateway.tools(sessionId, { held: true });
    await this.observe(this.sightings(tools, sessionId), sessionId);
  }

  /** Stops following other processes' pins (the kernel stops). */
  stop(): void {
    this.following?.();
    this.following = undefined;
  }

  /** Records what the log does not say yet, against its newest state; one observation at a time. */
  private observe(sightings: readonly Sighting[], sessionId: string | undefined): Promise<void> {
    const read = this.folded(this.view()) !== undefined;
    const next = this.queue.then(async () => {
      const { state } = await this.view().current();
      // Ids are chosen before the append: the poll that follows the log may see it committed before the append returns.
      const events = observations(sightings, state).map((event) => ({ ...event, id: randomUUID() }));
      if (this.following) for (const event of events) this.ours.add(event.id);
      if (events.length > 0) await this.parts.log().append(events);
      // A first pin changes no listing; a hold or a release may (a call saw it first), and so does a
      // listing made before the pins were read, which held back every guarded tool.
      if (!read || events.some((event) => event.type === 'tool.held' || event.type === 'tool.released'))
        this.parts.catalog.changed(sessionId);
    });
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** Each tool with the scope it was listed in: a session's own listing, or everyone's (the same object). */
  private sightings(tools: readonly ToolDefinition[], sessionId: string | undefined): Sighting[] {
    const shared =
      sessionId === undefined
        ? undefined
        : new Map(this.parts.gateway.tools(undefined, { held: true }).map((tool) => [tool.name, tool]));
    return tools.map((tool) => {
      const seen = this.parts.sight.of(tool);
      const own = shared !== undefined && shared.get(tool.name) !== tool;
      return own ? { ...seen, sessionId } : seen;
    });
  }

  /**
   * The pins as folded so far; none while the log has not been read for them (a process that did
   * not warm its rules): the listing then holds back every pinned source's tools, and the
   * observation that reads the log tells the agents their list changed.
   */
  private folded(view: ProjectionView<PinState>): PinState | undefined {
    try {
      return view.folded().state;
    } catch {
      return undefined;
    }
  }

  private view(): ProjectionView<PinState> {
    return this.parts.log().project(pinsProjection);
  }

  /** While agents are served: pins another process recorded (a person approving) tell them their list changed. */
  private follow(view: ProjectionView<PinState>): void {
    if (this.following) return;
    const log = this.parts.log();
    let telling = false;
    this.following = log.subscribe(view.folded().seq + 1, (event) => {
      if (!PIN_EVENTS.has(event.type) || this.ours.delete(event.id) || telling) return;
      // One telling for a burst of them (a person approving several tools at once).
      telling = true;
      void view
        .current()
        .catch(() => undefined)
        .then(() => {
          telling = false;
          this.parts.catalog.changed();
        });
    });
  }
}
