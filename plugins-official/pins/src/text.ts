import { canonicalJson, unifiedDiff } from '@factorly/text-kit';
import type { PinnedDefinition } from 'factorly';
import { short } from './definition.js';

/** The fields of a definition in the order people read them. */
const FIELDS = ['name', 'title', 'description', 'inputSchema', 'outputSchema', 'annotations', 'parameters'] as const;

/**
 * A definition as text a diff reads well: one block per field, a string as written (indented when
 * it has several lines), a schema as JSON with sorted keys, one key per line.
 */
export function definitionText(definition: PinnedDefinition): string {
  const blocks: string[] = [];
  for (const field of FIELDS) {
    const value = definition[field];
    if (value === undefined) continue;
    if (typeof value === 'string' && !value.includes('\n')) blocks.push(`${field}: ${value}`);
    else {
      const text =
        typeof value === 'string' ? value : JSON.stringify(JSON.parse(canonicalJson(value)) as unknown, null, 2);
      blocks.push(`${field}:\n${text.replace(/^/gm, '  ')}`);
    }
  }
  return `${blocks.join('\n')}\n`;
}

/** The unified diff from the pinned definition (none for a new tool) to the one listed. */
export function definitionDiff(
  tool: string,
  pinned: { digest: string; definition: PinnedDefinition } | undefined,
  listed: { digest: string; definition: PinnedDefinition },
): string {
  return unifiedDiff(
    `${tool} (pinned ${short(pinned?.digest)})`,
    pinned && definitionText(pinned.definition),
    definitionText(listed.definition),
    `${tool} (listed ${short(listed.digest)})`,
  );
}
