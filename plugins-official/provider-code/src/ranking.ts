import type { ToolDefinition } from 'factorly';

/** Query terms: camelCase split, lower-cased, split on anything not a letter or digit. */
export function terms(query: string): string[] {
  return query
    .replace(/\*/g, ' ')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((term) => term.length > 0);
}

/** A term and its de-pluralised forms (`-es`, `-s`). */
function forms(term: string): string[] {
  const out = [term];
  if (term.length > 3 && term.endsWith('es')) out.push(term.slice(0, -2));
  if (term.length > 2 && term.endsWith('s')) out.push(term.slice(0, -1));
  return out;
}

interface Entry {
  name: string;
  description: string;
  text: string;
}

function entryOf(tool: ToolDefinition): Entry {
  const params = tool.parameters.map((spec) => `${spec.name} ${spec.description ?? ''}`).join(' ');
  const name = tool.name.toLowerCase();
  const description = tool.description.toLowerCase();
  return { name, description, text: `${name} ${description} ${params.toLowerCase()}` };
}

function termScore(entry: Entry, term: string): number {
  let best = 0;
  for (const form of forms(term)) {
    let score = 0;
    if (entry.name === form || entry.name.endsWith(`.${form}`)) score += 20;
    if (entry.name.includes(form)) score += 8;
    if (entry.description.includes(form)) score += 4;
    if (entry.text.includes(form)) score += 2;
    best = Math.max(best, score);
  }
  return best;
}

/**
 * Deterministic lexical ranking over names, descriptions and parameter names: per term +20 when
 * the name is or ends with it, +8 when the name contains it, +4 for the description, +2 for any
 * searchable text. With terms, tools scoring 0 are left out; ties (and an empty query) go by name.
 */
export function rank(tools: readonly ToolDefinition[], query: string): ToolDefinition[] {
  const wanted = terms(query);
  const byName = [...tools].sort((a, b) => a.name.localeCompare(b.name));
  if (wanted.length === 0) return byName;
  const exact = byName.find((tool) => tool.name === query.trim());
  if (exact) return [exact];
  return byName
    .map((tool) => ({ tool, score: score(tool, wanted) }))
    .filter((scored) => scored.score > 0)
    .sort((a, b) => b.score - a.score || a.tool.name.localeCompare(b.tool.name))
    .map((scored) => scored.tool);
}

/** The ranking score of one tool for already split query terms. */
export function score(tool: ToolDefinition, wanted: readonly string[]): number {
  const entry = entryOf(tool);
  return wanted.reduce((sum, term) => sum + termScore(entry, term), 0);
}
