import { describe, expect, it } from 'vitest';
import { DEFAULT_CHECKPOINT_SETTINGS } from '../../src/config/checkpoint-settings.js';
import { parseLogSettings } from '../../src/config/log-settings.js';
import { DEFAULT_LOG_BOUNDS } from '../../src/events/capped-text.js';
import { newSignerKey, signerFromKey } from '../../src/events/signed-note.js';

const parse = (raw: unknown) => parseLogSettings(raw, 'f.yaml', '/p');

describe('the log: block', () => {
  it('has defaults for every key', () => {
    expect(parse(undefined)).toEqual({
      durability: 'fsync',
      bounds: DEFAULT_LOG_BOUNDS,
      checkpoints: DEFAULT_CHECKPOINT_SETTINGS,
      trustedKeys: [],
      engine: 'lmdb',
      engineOptions: {},
      at: { file: 'f.yaml', lines: {} },
    });
  });

  it('reads durability, bounds and the checkpoint keys in one block: durations, commands and paths', () => {
    const settings = parse({
      durability: 'commit',
      max_param_bytes: 2048,
      checkpoint_every: 0,
      checkpoint_interval: '5m',
      witness: ['logger', '-t', 'cp'],
      witness_dir: 'anchors',
      key: 'vault',
    });
    expect(settings).toEqual({
      durability: 'commit',
      bounds: { ...DEFAULT_LOG_BOUNDS, maxParamBytes: 2048 },
      checkpoints: {
        checkpointEvery: 0,
        checkpointIntervalMs: 300_000,
        witness: ['logger', '-t', 'cp'],
        witnessDir: '/p/anchors',
        key: 'vault',
      },
      trustedKeys: [],
      engine: 'lmdb',
      engineOptions: {},
      at: { file: 'f.yaml', lines: {} },
    });
    expect(parse({ checkpoint_interval: 0 }).checkpoints.checkpointIntervalMs).toBe(0);
  });

  it('refuses what it does not know, naming the key and the file', () => {
    expect(() => parse({ checkpoint_evry: 5 })).toThrow(
      'config: unknown key "checkpoint_evry" in log; did you mean "checkpoint_every"? (f.yaml)',
    );
    expect(() => parse({ durabilty: 'fsync' })).toThrow(
      'config: unknown key "durabilty" in log; did you mean "durability"? (f.yaml)',
    );
    expect(() => parse({ checkpoint_every: -1 })).toThrow(
      'config: log.checkpoint_every: -1 is not a whole number of events (0: never) (f.yaml)',
    );
    expect(() => parse({ checkpoint_interval: 'soon' })).toThrow(
      'config: log.checkpoint_interval: "soon" is not a duration',
    );
    expect(() => parse({ witness: [1] })).toThrow('config: log.witness: expected a command line');
    expect(() => parse({ witness_dir: 3 })).toThrow('config: log.witness_dir: expected a directory path');
    expect(() => parse({ key: 42 })).toThrow('config: log.key: 42 is not file or the name of a secret backend');
    expect(() => parse({ durability: 'sometimes' })).toThrow(
      'config: "log.durability" must be one of fsync, commit, not "sometimes" (f.yaml)',
    );
    expect(() => parse('yes')).toThrow(
      'config: "log" must be a mapping (engine, durability, trusted_keys, max_param_bytes, max_output_bytes, checkpoint_every, checkpoint_interval, witness, witness_dir, key), got "yes" (f.yaml)',
    );
  });

  it('reads trusted_keys as verifier keys, refusing one that is not, naming it', () => {
    const key = signerFromKey(newSignerKey('node-b')).verifierKey;
    expect(parse({ trusted_keys: [key] }).trustedKeys).toEqual([key]);
    expect(() => parse({ trusted_keys: [key, 'node-c+1234'] })).toThrow(
      'config: log.trusted_keys: "node-c+1234" is not a verifier key (',
    );
  });

  it('says file:line of the key when it knows the lines', () => {
    const lines = { log: 3, durability: 4, engine: 5 };
    expect(() => parseLogSettings({ durability: 'x' }, 'f.yaml', '/p', lines)).toThrow('(f.yaml:4)');
    expect(() => parseLogSettings({ engine: 'NATS!' }, 'f.yaml', '/p', lines)).toThrow(
      'config: "log.engine" must be the name of a log engine (lmdb, or one a plugin provides), not "NATS!" (f.yaml:5)',
    );
    expect(() => parseLogSettings({ servers: [] }, 'f.yaml', '/p', lines)).toThrow('unknown key "servers" in log');
  });

  it('leaves the keys it does not know to the engine when another engine is named', () => {
    const settings = parse({ engine: 'nats', durability: 'commit', servers: ['nats://h:4222'], stream: 's' });
    expect(settings).toMatchObject({
      engine: 'nats',
      durability: 'commit',
      engineOptions: { servers: ['nats://h:4222'], stream: 's' },
    });
  });
});
