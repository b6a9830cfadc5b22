import type { ShadowContext, ShadowRule, ShadowVerdict } from 'factorly';
import { modeOf, short } from './definition.js';
import { heldListing, pinsProjection, type PinState } from './fold.js';

export const PINS_RULE = 'pins';

/**
 * Refuses a call of a held tool (`definition_changed`). It decides from the pins the log holds and
 * the call's session alone: what the call's catalogue listed was recorded before the call (the pins
 * catalogue filter sees every tool a call resolves), so replaying the log re-derives each decision.
 * A tool that is not held gets no verdict (nothing is recorded for it).
 */
export class PinRule implements ShadowRule<PinState> {
  readonly name = PINS_RULE;
  // After log-params (5), before deny (10): a held tool is refused as held whatever else applies.
  readonly order = 7;
  readonly history = pinsProjection;

  evaluate({ tool, sessionId }: ShadowContext, state: PinState): ShadowVerdict | undefined {
    if (modeOf(tool) === false) return undefined;
    const record = state.tools.get(tool.name);
    const held = heldListing(record, sessionId);
    if (!held) return undefined;
    const approve = `a person approves it with \`factorly tools pins approve ${tool.name}\` or on the web UI's Pins page`;
    const what = record?.pin
      ? `its definition changed since it was pinned (listed ${short(held.digest)}, pinned ${short(record.pin.digest)})`
      : `it is new, and its source "${record?.source}" pins strictly`;
    return {
      decision: 'definition_changed',
      reason: `tool "${tool.name}" is held: ${what}; ${approve}`,
      facts: { listed: held.digest, pinned: record?.pin?.digest ?? null },
    };
  }
}
