import type { JsonValue } from '../events/catalog.js';
import type { NewEvent } from '../events/envelope.js';
import type { OutputProcessor } from './contracts/extensions.js';
import type { ToolDefinition } from './contracts/tool.js';

/**
 * Scrubs what a call tree is about to record (params, reasons, scripts) with the tree's secrets,
 * through the installed output processors on the `event` stream (scrubbers act on it, shaping stages
 * leave it alone). Every string is scrubbed on its own, keys included, so the result stays the same
 * JSON shape. Does nothing while the tree has no secrets.
 */
export class Redactor {
  constructor(
    private readonly processors: () => readonly OutputProcessor[],
    private readonly secrets: () => ReadonlyMap<string, string>,
    private readonly tool: ToolDefinition,
  ) {}

  /** Whether there is anything to scrub (callers that cannot wait for a scrub use this to step aside). */
  get active(): boolean {
    return this.secrets().size > 0;
  }

  async text(text: string): Promise<string> {
    const secrets = this.secrets();
    if (secrets.size === 0 || text === '') return text;
    let out = text;
    for (const processor of this.processors()) out = await processor.process(out, { tool: this.tool, secrets, stream: 'event' });
    return out;
  }

  async value<T extends JsonValue | undefined>(value: T): Promise<T> {
    if (!this.active || value === undefined) return value;
    return (await this.walk(value)) as T;
  }

  /** The event with every string of its data scrubbed. */
  async event<E extends NewEvent>(event: E): Promise<E> {
    if (!this.active) return event;
    return { ...event, data: await this.walk(event.data as unknown as JsonValue) } as E;
  }

  private async walk(value: JsonValue): Promise<JsonValue> {
    if (typeof value === 'string') return this.text(value);
    if (Array.isArray(value)) return Promise.all(value.map((item) => this.walk(item)));
    if (value === null || typeof value !== 'object') return value;
    const entries = await Promise.all(Object.entries(value).map(async ([key, item]) => [await this.text(key), await this.walk(item)] as const));
    return Object.fromEntries(entries.filter(([, item]) => item !== undefined));
  }
}

/** What the redactor names as the tool of a call whose tool does not exist (the name may itself hold a secret). */
export function unknownTool(name: string): ToolDefinition {
  return { name, type: 'unknown', description: '', hidden: true, parameters: [], spec: {}, source: { file: '<unknown>', line: 0 } };
}
