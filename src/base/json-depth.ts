/**
 * How deep a params value may nest. Deeper values are refused at validation on every interface:
 * the host's JSON.stringify, the scrubber's walk and the hash chain's canonical JSON all recurse, and
 * past a few thousand levels they throw instead of answering. 64 is far past any real tool's schema.
 */
export const MAX_PARAM_DEPTH = 64;

/**
 * Whether `value` nests deeper than `limit` arrays and objects. Walks without recursion and stops
 * at the first path past the limit, so it costs at most the value's size, whatever its depth.
 */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  // Most params are strings and numbers: no walk, no allocation.
  if (value === null || typeof value !== 'object') return false;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (item === null || typeof item !== 'object') continue;
    if (depth >= limit) return true;
    for (const child of Array.isArray(item) ? item : Object.values(item)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return false;
}

/**
 * JSON text of a value of any depth: JSON.stringify's, or, where it overflows the stack, the same
 * text written without recursion (JSON values only: what a parsed request can hold).
 */
export function jsonTextAnyDepth(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
  }
  const parts: string[] = [];
  // Each item is either text to write as is, or a value still to write; pushed last first.
  const todo: Piece[] = [{ value }];
  while (todo.length > 0) {
    const item = todo.pop()!;
    if ('text' in item) parts.push(item.text);
    else if (Array.isArray(item.value)) pushArray(todo, item.value);
    else if (item.value !== null && typeof item.value === 'object') pushObject(todo, item.value);
    else parts.push(JSON.stringify(item.value) ?? 'null');
  }
  return parts.join('');
}

type Piece = { text: string } | { value: unknown };

function pushArray(todo: Piece[], array: readonly unknown[]): void {
  todo.push({ text: ']' });
  for (let i = array.length - 1; i >= 0; i--) todo.push({ value: array[i] }, { text: i > 0 ? ',' : '[' });
  if (array.length === 0) todo.push({ text: '[' });
}

/** Undefined fields are left out, as JSON.stringify leaves them. */
function pushObject(todo: Piece[], object: object): void {
  const entries = Object.entries(object).filter(([, child]) => child !== undefined);
  todo.push({ text: '}' });
  for (let i = entries.length - 1; i >= 0; i--) {
    const [key, child] = entries[i];
    todo.push({ value: child }, { text: `${i > 0 ? ',' : '{'}${JSON.stringify(key)}:` });
  }
  if (entries.length === 0) todo.push({ text: '{' });
}
