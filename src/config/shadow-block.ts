import type { Node } from 'yaml';
import type { JsonValue } from '../events/catalog.js';
import { didYouMean } from '../base/suggest.js';
import type { ConfigDeclarations } from './declared.js';
import { shownPath } from './json-schema.js';
import { nodeAtPath } from './yaml-path.js';

type Problem = (message: string, node?: Node | null) => void;

/** A tool's `shadow:` block as written, once every key in it passed the checks of the plugins that declared it. */
export type ShadowBlock = { readonly [key: string]: JsonValue };

/**
 * Checks a tool's `shadow` block: a mapping whose keys belong to the installed rules (each key
 * checked against the schema of every plugin that declared it). Every mistake is reported with the
 * line of the offending key, so a typo in a rule's setting is a config error rather than
 * a setting that silently never applies.
 */
export function checkShadowBlock(
  value: unknown,
  node: Node | null,
  declared: ConfigDeclarations,
  problem: Problem,
): ShadowBlock | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) {
    problem('"shadow" must be a mapping', node);
    return undefined;
  }
  const block = value as Record<string, JsonValue>;
  const known = declared.known('shadow');
  for (const [key, setting] of Object.entries(block)) {
    const owners = declared.owners('shadow', key);
    const at = nodeAtPath(node, [key]);
    if (!owners) {
      problem(
        `has unknown key "shadow.${key}"${didYouMean(key, known)}${known.length === 0 ? ' (no installed plugin takes shadow settings)' : ''}`,
        at,
      );
      continue;
    }
    declared.check(owners, setting, (found) => {
      const where = nodeAtPath(at, found.path);
      const shown = shownPath(`shadow.${key}`, found.path);
      problem(
        found.unknownKey ? `has unknown key "${shown}"${found.message}` : `has an invalid ${shown}: ${found.message}`,
        where,
      );
    });
  }
  return block;
}
