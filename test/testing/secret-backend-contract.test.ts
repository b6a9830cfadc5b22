import { describe, expect, it } from 'vitest';
import type { SecretBackend } from '../../src/contracts/extensions.js';
import { secretBackendContract, type SecretBackendSubject } from '../../src/testing/contracts/secret-backend.js';
import { PASSED, runSuite } from '../helpers/suite-runner.js';

/** The secret-backend suite on planted backends: a sound one passes every case, each break fails its case. */

function planted(
  over: Partial<SecretBackend> | ((values: Map<string, string>) => Partial<SecretBackend>) = {},
): SecretBackendSubject {
  const values = new Map<string, string>();
  const backend: SecretBackend = {
    name: 'planted',
    readOnly: false,
    resolve: async (key) => values.get(key),
    write: async (key, value) => (values.set(key, value), { tier: 'memory' }),
    list: async () => ({ tier: 'memory', keys: [...values.keys()] }),
    remove: async (key) => ({ tier: 'memory', existed: values.delete(key) }),
    ...(typeof over === 'function' ? over(values) : over),
  };
  return { name: 'planted', create: () => backend };
}

const run = (subject: SecretBackendSubject) => runSuite((api) => secretBackendContract(api, subject));
const NAMED = 'has its name and says whether it is read-only';
const RESOLVES = 'resolves an unknown key to undefined and a known one to its value';
const ROUND_TRIP = 'writes, reads, lists and removes a key, never echoing its value';

describe('the secret-backend suite on planted backends', () => {
  it('passes a backend that keeps the contract, every case', async () => {
    expect([...(await run(planted())).values()]).toEqual([PASSED, PASSED, PASSED]);
  });

  it('fails a writable backend without write(), and a read-only one with nothing known to read', async () => {
    const unwritable = await run(planted({ write: undefined }));
    expect(unwritable.get(NAMED)).toMatch(/^a backend that is not read-only offers write\(\)/);
    expect(unwritable.get(ROUND_TRIP)).toMatch(/^a backend that is not read-only offers write\(\)/);
    const empty = await run(planted({ readOnly: true, write: undefined, resolve: async () => undefined }));
    expect(empty.get(RESOLVES)).toMatch(/^a read-only backend needs `known`/);
  });

  it('fails a backend that resolves an unknown key, echoes a value, or keeps a removed key', async () => {
    expect((await run(planted({ resolve: async () => '' }))).get(RESOLVES)).not.toBe(PASSED);
    const echoing = await run(
      planted((values) => ({ write: async (key, value) => (values.set(key, value), { tier: `memory ${value}` }) })),
    );
    expect(echoing.get(ROUND_TRIP)).toMatch(/^a result echoed the value/);
    const keeping = await run(planted({ remove: async () => ({ tier: 'memory', existed: true }) }));
    expect(keeping.get(ROUND_TRIP)).not.toBe(PASSED);
    expect((await run({ ...planted(), name: 'other' })).get(NAMED)).not.toBe(PASSED);
  });
});
