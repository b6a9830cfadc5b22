import type { OutputContext, OutputProcessor } from 'factorly';
import { scrubSecrets } from './scrub.js';

/** Runs first, so no later processor (compression, truncation) ever sees or splits a secret. */
export const SCRUB_ORDER = -1_000_000;

/** Replaces every secret resolved for the call, in any encoding it may appear in, by `[REDACTED:KEY]`. */
export class SecretScrubber implements OutputProcessor {
  readonly name = 'vault.scrub';
  readonly order = SCRUB_ORDER;

  process(text: string, context: OutputContext): string {
    return context.secrets.size === 0 || text === '' ? text : scrubSecrets(text, context.secrets);
  }
}
