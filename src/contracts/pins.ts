import { createToken } from '../base/token.js';
import type { PinnedDefinition } from '../events/catalog.js';

// Pinned tool definitions, as the host's commands and the web UI use them (`factorly tools pins`):
// the pins plugin provides them under `PinTokens.Pins`. The pins themselves are events of the log
// (`tool.pinned`, `tool.held`, `tool.released`, `tool.pin_rejected`), folded into this view.

/** One listing of a tool that differs from its pin: for everyone, or for one session. */
export interface HeldListing {
  digest: string;
  /** The session whose catalogue showed it; absent for everyone's. */
  sessionId?: string;
  /** `definition_changed`, or `new_tool` (no pin yet, from a source that pins strictly). */
  cause: 'definition_changed' | 'new_tool';
  /** When it was first seen (ISO-8601). */
  at: string;
  /** A person refused this definition: it stays held until the source lists the pinned one again. */
  rejected: boolean;
}

/** A tool's pin and where it is held. */
export interface ToolPinStatus {
  tool: string;
  source: string;
  /** `held`: some listing differs and waits for a person; `rejected`: every held listing was refused. */
  state: 'pinned' | 'held' | 'rejected';
  pin?: { digest: string; at: string; cause: 'first_seen' | 'config' | 'approved'; by?: string };
  held: HeldListing[];
}

/** A held definition beside the pinned one, and a readable unified diff between them. */
export interface PinDiff {
  tool: string;
  pinned?: { digest: string; definition: PinnedDefinition };
  listed: { digest: string; definition: PinnedDefinition; sessionId?: string };
  /** Unified diff of the two definitions (YAML-like text, one field per block); empty lines never differ. */
  diff: string;
}

/** What a person decided, as recorded. */
export interface PinDecision {
  tool: string;
  digest: string;
}

export interface ToolPins {
  /** Every pinned or held tool, by name, from the log (every process's listings). */
  list(): Promise<ToolPinStatus[]>;
  /**
   * The held definition of `tool` beside its pin: the one with `digest` (a prefix will do), or the
   * newest held one. A tool that is not held is a `TOOL_NOT_FOUND` error naming it.
   */
  diff(tool: string, digest?: string): Promise<PinDiff>;
  /** Pins the held definition (the one `diff` shows for the same `digest`): `tool.pinned`, cause `approved`. */
  approve(tool: string, options: { by: string; digest?: string }): Promise<PinDecision>;
  /** Refuses the held definition (`tool.pin_rejected`): the tool stays held until the source lists its pin again. */
  reject(tool: string, options: { by: string; digest?: string }): Promise<PinDecision>;
}

export const PinTokens = {
  Pins: createToken<ToolPins>('pins.pins'),
} as const;
