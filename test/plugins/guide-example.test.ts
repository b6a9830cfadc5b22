import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EventLog } from '../../src/events/log.js';
import type { PluginEventType, PluginNewEvent } from '../../src/events/envelope.js';
import { startTestKernel } from '../../src/testing/kernel.js';
import { notes } from '../fixtures/guide/notes-plugin.js';
import { REPO } from '../helpers/project.js';

/**
 * The plugin guide's example of an event type of a plugin's own (docs/plugins/README.md) is this
 * file's fixture, word for word: `tsc -p tsconfig.test.json` (run by `npm test`) type-checks it with
 * the rest of the tests, and here it runs in a kernel.
 */

const FIXTURE = 'test/fixtures/guide/notes-plugin.ts';
const GUIDE = 'docs/plugins/README.md';

describe("the plugin guide's event type example", () => {
  it('is in the guide word for word, as is the derived-state example (run by test/events/derived-evidence.test.ts)', () => {
    for (const fixture of [FIXTURE, 'test/fixtures/guide/by-iface-plugin.ts']) {
      const example = readFileSync(join(REPO, fixture), 'utf8');
      expect(readFileSync(join(REPO, GUIDE), 'utf8')).toContain(`\`\`\`ts\n${example}\`\`\``);
    }
  });

  it('appends its event, recorded at its version', async () => {
    const kernel = await startTestKernel('tools:\n  t: {type: cli, command: echo, args: [ran]}\n', [notes]);
    try {
      const recorded = (await kernel.events()).filter((event) => String(event.type) === 'notes.noted');
      expect(recorded).toMatchObject([{ v: 2, data: { note: 'notes started', words: 2 } }]);
    } finally {
      await kernel.stop();
    }
  });
});

/** Checked by tsc, never run: what an append of a plugin's event type accepts and refuses. */
export function typeChecks(log: EventLog, NOTED: PluginEventType<{ note: string }>): void {
  void log.append([{ type: NOTED, data: { note: 'a registered type appends' } }]);
  // @ts-expect-error a plain string is not a registered type (the log would refuse it: EVENT_UNKNOWN)
  void log.append([{ type: 'notes.noted', data: { note: 'x' } }]);
  // @ts-expect-error factorly's own types keep their data's shape
  void log.append([{ type: 'call.requested', data: { note: 'x' } }]);
  // @ts-expect-error typed by its data's shape, an event missing a field does not compile
  const missing: PluginNewEvent<{ note: string; words: number }> = { type: NOTED, data: { note: 'x' } };
  void missing;
}
