// The public API of the pins plugin (`@factorly/plugin-pins/api`): the pins it provides, whose
// contract the SDK holds (the host's `factorly tools pins` commands use it too). Types and the token
// only: the token is spelled as `createToken('pins.pins')` makes it, so importing it loads no SDK code.
import type { Token, ToolPins } from 'factorly';

export type { HeldListing, PinDecision, PinDiff, ToolPins, ToolPinStatus } from 'factorly';

export const PinTokens = {
  Pins: Symbol.for('factorly:pins.pins') as Token<ToolPins>,
};
