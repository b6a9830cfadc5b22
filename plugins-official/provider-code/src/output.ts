import { utf8BoundaryBefore } from '@factorly/text-kit';
import type { JsonValue } from 'factorly';

/** What `run` returned, as tool output: strings verbatim, null/undefined empty, anything else JSON. */
export function outputOf(value: JsonValue | undefined): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** Cuts at a UTF-8 character boundary and says so; the output stays usable, never an error. */
export function capOutput(text: string, maxBytes: number | undefined): string {
  if (maxBytes === undefined) return text;
  const buffer = Buffer.from(text, 'utf8');
  if (buffer.length <= maxBytes) return text;
  const end = utf8BoundaryBefore(buffer, maxBytes);
  return `${buffer.subarray(0, end).toString('utf8')}\n… output truncated: ${buffer.length} bytes, the first ${end} shown (max_output ${maxBytes})`;
}
