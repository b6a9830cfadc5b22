import { describe, expect, it } from 'vitest';
import type { Recorded } from '../../src/events/envelope.js';
import { MemoryEventLog } from '../../src/events/memory-log.js';
import { fold, type Projection } from '../../src/events/projection.js';
import { upcast } from '../../src/events/upcast.js';
import type { PluginDefinition } from '../../src/plugins/define-plugin.js';
import { startTestKernel } from '../../src/testing/kernel.js';

const YAML = 'tools:\n  t: {type: cli, command: echo, args: [ran]}\n';

/** A plugin whose `noted` events are at v2: v1 had `text`, v2 has `note` and `words`. */
function noting(
  id: string,
  version = 2,
  name = 'noted',
  upcasters: Record<number, (data: unknown) => unknown> = {
    1: (data) => ({ note: (data as { text: string }).text, words: (data as { text: string }).text.split(' ').length }),
  },
): PluginDefinition & { type?: string } {
  const plugin: PluginDefinition & { type?: string } = {
    id,
    apiVersion: '1',
    register(registrar) {
      plugin.type = registrar.eventType(name, { version, upcasters });
      registrar.registerInit({ deps: {}, init() {} });
    },
  };
  return plugin;
}

describe('event types plugins register', () => {
  it('are written at their version and read upcast from older ones', async () => {
    const plugin = noting('notes');
    const kernel = await startTestKernel(YAML, [plugin]);
    try {
      expect(plugin.type).toBe('notes.noted');
      const [written] = await kernel.log.append([
        { type: 'notes.noted', data: { note: 'hello there', words: 2 } } as never,
      ]);
      expect(written).toMatchObject({ type: 'notes.noted', v: 2 });
      // An event an older version of the plugin wrote, as the log keeps it: readers see the current shape.
      const old = { ...written, v: 1, data: { text: 'from the old days' } } as unknown as Recorded;
      expect(upcast(old)).toMatchObject({ v: 2, data: { note: 'from the old days', words: 4 } });
      const words: Projection<number> = {
        name: 'words',
        version: 1,
        init: () => 0,
        evolve: (sum, event) =>
          event.type === ('notes.noted' as never) ? sum + (event.data as unknown as { words: number }).words : sum,
      };
      expect(fold([old, written], words)).toBe(6);
      const inventory = kernel.kernel.inventory().find((each) => each.id === 'notes');
      expect(inventory?.contributes.eventTypes).toEqual(['notes.noted@2']);
    } finally {
      await kernel.stop();
    }
  });

  it('refuses to append an event type nobody declared, writing nothing', async () => {
    const log = new MemoryEventLog();
    await expect(log.append([{ type: 'nobody.declared', data: {} } as never])).rejects.toThrow(
      'event type "nobody.declared" is not in the catalogue',
    );
    expect((await log.head()).seq).toBe(0);
  });

  it("fails the plugin (and only it) for a missing upcaster, a bad name or one of factorly's own types", async () => {
    const kernel = await startTestKernel(YAML, [
      noting('gappy', 3, 'noted', { 1: (data) => data }),
      noting('call', 1, 'requested'),
      noting('fine', 1),
      {
        ...noting('bad'),
        register(registrar) {
          registrar.eventType('Not A Name', { version: 1 });
          registrar.registerInit({ deps: {}, init() {} });
        },
      },
    ]);
    try {
      const reasons = Object.fromEntries(kernel.kernel.plugins.failed.map((failed) => [failed.id, failed.reason]));
      expect(reasons.gappy).toContain(
        'plugin "gappy" registers event type "gappy.noted" at version 3: upcasters[2] (v2 → v3) is missing',
      );
      expect(reasons.bad).toContain('a name is lower-case words joined by dots');
      expect(reasons.call).toContain(
        'registers event type "call.requested": that is one of factorly\'s own event types',
      );
      expect(kernel.kernel.plugins.loaded.map((loaded) => loaded.id)).toContain('fine');
    } finally {
      await kernel.stop();
    }
  });
});
