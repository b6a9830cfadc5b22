/**
 * Text for a person's terminal: the escaping lives in @factorly/text-kit, shared with the official
 * plugins that write an agent's or an upstream's text to stderr (one piece of code for the idea).
 */
import { writeStderrLine } from '@factorly/text-kit';

export { printableLine, printableText } from '@factorly/text-kit';

/** A warning for the person running factorly (the kernel's and the CLI's), on stderr, escaped. */
export function writeWarning(message: string): void {
  writeStderrLine('warning: ', message);
}
