import type { JsonValue } from '../events/catalog.js';
import type { NewEvent } from '../events/envelope.js';
import type { OutputProcessor } from '../contracts/extensions.js';
import type { ToolDefinition } from '../contracts/tool.js';

/**
 * Scrubs what a call tree is about to record (params, reasons, scripts) with the tree's secrets,
 * through the installed output processors on the `event` stream (scrubbers act on it, shaping stages
 * leave it alone). Every string is scrubbed on its own, keys included, so the result keeps its JSON
 * shape. Does nothing while the tree has no secrets.
 */
export class Redactor {
  constructor(
    private readonly processors: () => readonly OutputProcessor[],
    private readonly secrets: () => ReadonlyMap<string, string>,
    private readonly tool: ToolDefinition,
  ) {}

  /** Whether there is anything to scrub. */
  get active(): boolean {
    return this.secrets().size > 0;
  }

  async text(text: string): Promise<string> {
    const secrets = this.secrets();
    if (secrets.size === 0 || text === '') return text;
    let out = text;
    for (const processor of this.processors())
      out = await processor.process(out, { tool: this.tool, secrets, stream: 'event' });
    return out;
  }

  /**
   * The same scrub without waiting, for text decided inside an event-log write (where nothing can be
   * awaited); `undefined` when a processor answers with a promise (the caller then decides again outside).
   */
  textNow(text: string): string | undefined {
    const secrets = this.secrets();
    if (secrets.size === 0 || text === '') return text;
    let out = text;
    for (const processor of this.processors()) {
      const next = processor.process(out, { tool: this.tool, secrets, stream: 'event' });
      if (typeof next !== 'string') {
        void Promise.resolve(next).catch(() => undefined);
        return undefined;
      }
      out = next;
    }
    return out;
  }

  async value<T extends JsonValue | undefined>(value: T): Promise<T> {
    if (!this.active || value === undefined) return value;
    const changed = new Map<string, string>();
    await Promise.all(
      stringsOf(value).map(async (text) => {
        const out = await this.text(text);
        if (out !== text) changed.set(text, out);
      }),
    );
    // Nothing held a secret: the value as it was, not a copy of it.
    return changed.size === 0 ? value : (rebuilt(value, changed) as T);
  }

  /** `value` without waiting (see `textNow`). */
  valueNow<T extends JsonValue>(value: T): T | undefined {
    if (!this.active) return value;
    const changed = new Map<string, string>();
    for (const text of stringsOf(value)) {
      const out = this.textNow(text);
      if (out === undefined) return undefined;
      if (out !== text) changed.set(text, out);
    }
    return changed.size === 0 ? value : (rebuilt(value, changed) as T);
  }

  /** The event with every string of its data scrubbed. */
  async event<E extends NewEvent>(event: E): Promise<E> {
    if (!this.active) return event;
    return { ...event, data: await this.value(event.data as unknown as JsonValue) } as E;
  }
}

/** Every distinct string of a JSON value, object keys included. */
function stringsOf(value: JsonValue): string[] {
  const found = new Set<string>();
  const visit = (item: JsonValue | undefined): void => {
    if (typeof item === 'string') found.add(item);
    else if (Array.isArray(item)) item.forEach(visit);
    else if (item !== null && typeof item === 'object') {
      for (const [key, child] of Object.entries(item)) {
        found.add(key);
        visit(child);
      }
    }
  };
  visit(value);
  return [...found];
}

/** The value with each string replaced by its scrubbed form (fields left undefined are dropped, as JSON would). */
function rebuilt(value: JsonValue, scrubbed: ReadonlyMap<string, string>): JsonValue {
  if (typeof value === 'string') return scrubbed.get(value) ?? value;
  if (Array.isArray(value)) return value.map((item) => rebuilt(item, scrubbed));
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value).filter(([, item]) => item !== undefined);
  return Object.fromEntries(entries.map(([key, item]) => [scrubbed.get(key) ?? key, rebuilt(item, scrubbed)]));
}
