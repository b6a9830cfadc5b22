import { isMap, isScalar, parseDocument, type Node } from 'yaml';
import { FactorlyError } from '../../base/errors.js';
import type { Blueprint } from './format.js';

/**
 * What `--set` may point elsewhere (a self-hosted GitLab, a GitHub Enterprise, a test fake): where a
 * blueprint's tools and providers live, nothing else.
 */
const SETTABLE: Record<string, { where: 'tools' | 'oauth_providers'; type?: string; what: string }> = {
  base_url: { where: 'tools', type: 'rest', what: 'its rest tools' },
  url: { where: 'tools', type: 'mcp', what: 'its mcp tools' },
  auth_url: { where: 'oauth_providers', what: 'its OAuth providers' },
  token_url: { where: 'oauth_providers', what: 'its OAuth providers' },
  issuer: { where: 'oauth_providers', what: 'its OAuth providers' },
};
export const SETTABLE_KEYS = Object.keys(SETTABLE);

/** `key=value` pairs as `--set` gives them, checked: a key above and an http(s) URL. */
export function parseSets(pairs: readonly string[]): Record<string, string> {
  const sets: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    const [key, value] = at < 0 ? [pair, ''] : [pair.slice(0, at), pair.slice(at + 1)];
    if (!Object.hasOwn(SETTABLE, key))
      throw new FactorlyError(
        'USAGE',
        `--set ${JSON.stringify(pair)}: the key must be one of ${SETTABLE_KEYS.join(', ')}`,
      );
    if (!/^https?:\/\/[^\s]+$/i.test(value))
      throw new FactorlyError('USAGE', `--set ${key}: ${JSON.stringify(value)} is not an http:// or https:// URL`);
    sets[key] = value.replace(/\/+$/, '');
  }
  return sets;
}

/**
 * The blueprint's text with the `--set` values in place. Each value replaces the scalar where it is
 * written, nothing else of the text moves, so every line stays where the author put it (and a
 * message's `file:line` still points at the source). A key the blueprint has nowhere is refused.
 */
export function applySets(blueprint: Blueprint, sets: Record<string, string>): string {
  const doc = parseDocument(blueprint.text);
  const edits: { start: number; end: number; text: string }[] = [];
  for (const [key, value] of Object.entries(sets)) {
    const { where, type, what } = SETTABLE[key];
    const block = doc.get(where, true) as Node | undefined;
    let found = 0;
    if (isMap(block)) {
      for (const pair of block.items) {
        const entry = pair.value;
        if (!isMap(entry) || (type !== undefined && entry.get('type') !== type)) continue;
        const node = entry.get(key, true) as Node | undefined;
        if (!isScalar(node) || !node.range) continue;
        edits.push({ start: node.range[0], end: node.range[1], text: JSON.stringify(value) });
        found += 1;
      }
    }
    if (found === 0)
      throw new FactorlyError('USAGE', `--set ${key}: blueprint "${blueprint.header.name}" has no ${key} (on ${what})`);
  }
  let text = blueprint.text;
  for (const edit of edits.sort((a, b) => b.start - a.start))
    text = `${text.slice(0, edit.start)}${edit.text}${text.slice(edit.end)}`;
  return text;
}

/** One host a blueprint talks to, and what talks to it. */
export interface BlueprintHost {
  host: string;
  uses: string[];
}

/** Every host a blueprint's tools and OAuth providers reach, with who reaches it: shown before anything is written. */
export function hostsOf(blueprint: Blueprint): BlueprintHost[] {
  const hosts = new Map<string, string[]>();
  const add = (url: unknown, user: string): void => {
    if (typeof url !== 'string') return;
    const host = hostOf(url);
    hosts.set(host, [...(hosts.get(host) ?? []), user]);
  };
  for (const tool of blueprint.tools) {
    const value = (tool.value ?? {}) as Record<string, unknown>;
    add(value.type === 'mcp' ? value.url : value.base_url, `tool ${tool.name}`);
  }
  for (const [name, provider] of Object.entries(blueprint.oauthProviders)) {
    for (const key of ['issuer', 'auth_url', 'token_url']) add(provider[key], `oauth ${name} ${key}`);
  }
  return [...hosts].map(([host, uses]) => ({ host, uses })).sort((a, b) => a.host.localeCompare(b.host));
}

/** `host[:port]` of a URL; a URL that is a template (`{{vault:BASE}}`) as written. */
function hostOf(url: string): string {
  try {
    return new URL(url).host || url;
  } catch {
    return url;
  }
}

/** The lines an installed file ends with: where it came from and what was set, read back by `list` and `show`. */
const RECORD = '# factorly blueprint:';

export interface InstallRecord {
  source?: string;
  set: Record<string, string>;
}

/** The text to write: the blueprint as given (sets applied), then the record of its install. */
export function withRecord(text: string, source: string, sets: Record<string, string>): string {
  const lines = [`${RECORD} installed from ${source}`];
  for (const [key, value] of Object.entries(sets)) lines.push(`${RECORD} set ${key}=${value}`);
  return `${text.endsWith('\n') ? text : `${text}\n`}${lines.join('\n')}\n`;
}

export function readRecord(text: string): InstallRecord {
  const record: InstallRecord = { set: {} };
  for (const line of text.split('\n')) {
    if (!line.startsWith(RECORD)) continue;
    const rest = line.slice(RECORD.length).trim();
    if (rest.startsWith('installed from ')) record.source = rest.slice('installed from '.length);
    const set = /^set ([a-z_]+)=(.*)$/.exec(rest);
    if (set) record.set[set[1]] = set[2];
  }
  return record;
}
