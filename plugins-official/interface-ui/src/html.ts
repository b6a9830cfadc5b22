import type { Params } from 'factorly';

/** Markup that is already safe: the only values `html` inserts without escaping. */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escape(value: string): string {
  return value.replace(/[&<>"']/g, (ch) => ENTITIES[ch]);
}

/**
 * Builds markup from a template: every interpolated value is escaped unless it is `Html` (made by
 * this tag); arrays are joined; `undefined`, `null` and `false` render nothing. Every page is built
 * with it, so text from the log (params, outputs, tool names) can never become markup.
 */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0];
  for (let i = 0; i < values.length; i += 1) out += render(values[i]) + strings[i + 1];
  return new Html(out);
}

function render(value: unknown): string {
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === undefined || value === null || value === false) return '';
  return escape(String(value));
}

/** Highlighted params (`shadow.log_params`) as `name=value` pairs, each in its own `<code>`; nothing when none. */
export function highlights(params: Params | undefined): Html | undefined {
  if (!params) return undefined;
  const pairs = Object.entries(params).map(
    ([name, value]) => html`<code>${name}=${typeof value === 'string' ? value : JSON.stringify(value)}</code>`,
  );
  return html`<span class="highlights" title="highlighted params">${pairs}</span>`;
}

/** JSON shown to a person: indented, or as is when it is not JSON. */
export function pretty(value: unknown): string {
  if (typeof value === 'string') {
    try {
      return JSON.stringify(JSON.parse(value), null, 2);
    } catch {
      return value;
    }
  }
  return JSON.stringify(value, null, 2) ?? '';
}

export function duration(ms: number | undefined): string {
  if (ms === undefined) return '—';
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}

/** `2026-11-30T06:13:26.123Z` → `06:13:26` today, else `2026-11-30 06:13`. */
export function when(iso: string, now = new Date()): string {
  const sameDay = iso.slice(0, 10) === now.toISOString().slice(0, 10);
  return sameDay ? iso.slice(11, 19) : `${iso.slice(0, 10)} ${iso.slice(11, 16)}`;
}

/** A count with thousands separators (`1,234,567`), the same on every machine. */
export function count(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** `n thing` / `n things`, the count separated. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${count(n)} ${n === 1 ? one : many}`;
}

/** A wait as a person reads it: `8 s`, `2 min 05 s`, `1 h 02 min` (static/app.js counts the same way). */
export function waited(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')} min`;
}
