import { describe, expect, it } from 'vitest';
import { DEFAULT_CHECKPOINT_SETTINGS, parseCheckpointSettings } from '../../src/kernel/config/checkpoint-settings.js';

describe('the log: block (checkpoints)', () => {
  it('has defaults, reads durations, commands and paths', () => {
    expect(parseCheckpointSettings(undefined, '/p')).toEqual(DEFAULT_CHECKPOINT_SETTINGS);
    expect(parseCheckpointSettings({ checkpoint_every: 0, checkpoint_interval: '5m', witness: ['logger', '-t', 'cp'], witness_dir: 'anchors', key: 'vault' }, '/p')).toEqual({
      checkpointEvery: 0, checkpointIntervalMs: 300_000, witness: ['logger', '-t', 'cp'], witnessDir: '/p/anchors', key: 'vault',
    });
    expect(parseCheckpointSettings({ checkpoint_interval: 0 }, '/p').checkpointIntervalMs).toBe(0);
  });

  it('refuses what it does not know, naming the key', () => {
    expect(() => parseCheckpointSettings({ checkpoint_evry: 5 }, '/p')).toThrow('config: log.checkpoint_evry: unknown key; did you mean "checkpoint_every"?');
    expect(() => parseCheckpointSettings({ checkpoint_every: -1 }, '/p')).toThrow('config: log.checkpoint_every: -1 is not a whole number of events (0: never)');
    expect(() => parseCheckpointSettings({ checkpoint_interval: 'soon' }, '/p')).toThrow('config: log.checkpoint_interval: "soon" is not a duration');
    expect(() => parseCheckpointSettings({ witness: [1] }, '/p')).toThrow('config: log.witness: expected a command line');
    expect(() => parseCheckpointSettings({ key: 'hsm' }, '/p')).toThrow('config: log.key: "hsm" is not one of file, vault');
    expect(() => parseCheckpointSettings('yes', '/p')).toThrow('config: log: expected a mapping');
  });
});
