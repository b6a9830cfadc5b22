import { FactorlyError } from '@factorly/error-kit';
import type {
  EventLog,
  HeldListing,
  PinDecision,
  PinDiff,
  PinnedDefinition,
  ToolCatalog,
  ToolPins,
  ToolPinStatus,
} from 'factorly';
import { pinsProjection, SHARED, type PinState, type ToolRecord } from './fold.js';
import { definitionDiff } from './text.js';

interface Held extends HeldListing {
  definition: PinnedDefinition;
}

/**
 * The pins as people see and decide them (`factorly tools pins`, the web UI's Pins page): read from
 * the log's pins fold at its newest state, decisions appended as events. A decision names the digest
 * it was shown, so a definition that changed again meanwhile is not approved unseen.
 */
export class PinBook implements ToolPins {
  private attached?: { log: () => EventLog; catalog: ToolCatalog };

  /** Provided at register, usable once the plugin's init has handed it the log and the catalogue. */
  attach(parts: { log: () => EventLog; catalog: ToolCatalog }): void {
    this.attached = parts;
  }

  async list(): Promise<ToolPinStatus[]> {
    const state = await this.state();
    return [...state.tools.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([tool, record]) => statusOf(tool, record));
  }

  async diff(tool: string, digest?: string): Promise<PinDiff> {
    const { record, held } = this.chosen(await this.state(), tool, digest);
    const pinned = record.pin && { digest: record.pin.digest, definition: record.pin.definition };
    const listed = { digest: held.digest, definition: held.definition, ...scoped(held.sessionId) };
    return { tool, ...(pinned ? { pinned } : {}), listed, diff: definitionDiff(tool, pinned, listed) };
  }

  async approve(tool: string, options: { by: string; digest?: string }): Promise<PinDecision> {
    const { record, held } = this.chosen(await this.state(), tool, options.digest);
    const { digest, definition } = held;
    await this.record({
      type: 'tool.pinned',
      data: { tool, digest, definition, source: record.source, cause: 'approved', by: options.by },
    });
    return { tool, digest };
  }

  async reject(tool: string, options: { by: string; digest?: string }): Promise<PinDecision> {
    const { digest } = this.chosen(await this.state(), tool, options.digest).held;
    await this.record({ type: 'tool.pin_rejected', data: { tool, digest, by: options.by } });
    return { tool, digest };
  }

  private async state(): Promise<PinState> {
    return (await this.parts().log().project(pinsProjection).current()).state;
  }

  private async record(event: Parameters<EventLog['append']>[0][number]): Promise<void> {
    await this.parts().log().append([event]);
    this.parts().catalog.changed();
  }

  private parts(): { log: () => EventLog; catalog: ToolCatalog } {
    if (!this.attached) throw new FactorlyError('LIFECYCLE', 'the pins are read once the pins plugin has started');
    return this.attached;
  }

  /** The held definition a decision is about: the one `digest` starts, or the newest. */
  private chosen(state: PinState, tool: string, digest: string | undefined): { record: ToolRecord; held: Held } {
    const record = state.tools.get(tool);
    const held = record ? heldOf(record) : [];
    if (!record || held.length === 0)
      throw new FactorlyError(
        'TOOL_NOT_FOUND',
        record ? `tool "${tool}" is not held: its listings show its pin` : `no tool "${tool}" has a pin`,
      );
    if (digest === undefined) return { record, held: held.reduce((a, b) => (b.at > a.at ? b : a)) };
    const matching = [...new Map(held.filter((h) => h.digest.startsWith(digest)).map((h) => [h.digest, h])).values()];
    if (matching.length === 1) return { record, held: matching[0] };
    const shown = held.map((h) => h.digest.slice(0, 12)).join(', ');
    throw new FactorlyError(
      'USAGE',
      matching.length === 0
        ? `tool "${tool}" holds no definition with digest ${JSON.stringify(digest)} (held: ${shown})`
        : `digest ${JSON.stringify(digest)} names several held definitions of "${tool}" (${shown}): give more of it`,
    );
  }
}

function statusOf(tool: string, record: ToolRecord): ToolPinStatus {
  const held = heldOf(record).map(({ definition: _definition, ...listing }) => listing);
  const { pin } = record;
  return {
    tool,
    source: record.source,
    state: held.length === 0 ? 'pinned' : held.every((h) => h.rejected) ? 'rejected' : 'held',
    ...(pin ? { pin: { digest: pin.digest, at: pin.at, cause: pin.cause, ...(pin.by ? { by: pin.by } : {}) } } : {}),
    held,
  };
}

/** The listings that differ from the pin, with what they showed. */
function heldOf(record: ToolRecord): Held[] {
  const held: Held[] = [];
  for (const [scope, listing] of record.listings) {
    if (listing.digest === record.pin?.digest || !listing.definition) continue;
    held.push({
      digest: listing.digest,
      ...scoped(scope === SHARED ? undefined : scope),
      cause: listing.cause ?? 'definition_changed',
      at: listing.at,
      rejected: record.rejected.has(listing.digest),
      definition: listing.definition,
    });
  }
  return held;
}

function scoped(sessionId: string | undefined): { sessionId?: string } {
  return sessionId === undefined ? {} : { sessionId };
}
