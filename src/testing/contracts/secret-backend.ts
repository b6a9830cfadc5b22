import type { SecretBackend } from '../../contracts/extensions.js';
import { assert, within, type TestApi } from '../suite.js';

/** How long one call of the backend may take (a CLI-backed one runs a command). */
const CALL_MS = 10_000;

export interface SecretBackendSubject {
  name: string;
  create(): SecretBackend | Promise<SecretBackend>;
  /** A key the backend already holds and its value (for a read-only backend: what its source has). */
  known?: { key: string; value: string };
}

/**
 * What every `SecretBackend` must do: its name and whether it is read-only; an unknown key resolves
 * to undefined (the kernel then names the reference); a known key to its value; and for a writable
 * backend a write → read → list → remove round trip whose results name a tier and never echo a value.
 */
export function secretBackendContract(test: TestApi, subject: SecretBackendSubject): void {
  const { describe, it } = test;
  describe(`SecretBackend contract: ${subject.name}`, () => {
    it('has its name and says whether it is read-only', async () => {
      const backend = await subject.create();
      assert.equal(backend.name, subject.name);
      assert.equal(typeof backend.readOnly, 'boolean');
      if (backend.readOnly) assert.equal(backend.write, undefined, 'a read-only backend offers no write');
      else assert.equal(typeof backend.write, 'function', 'a backend that is not read-only offers write()');
    });

    it('resolves an unknown key to undefined and a known one to its value', async () => {
      const backend = await subject.create();
      // Without a value to read, a backend that resolves nothing at all would pass.
      assert.ok(
        subject.known || !backend.readOnly,
        'a read-only backend needs `known` (a key its source holds): without it no case reads a value',
      );
      assert.equal(
        await within(backend.resolve(`NO_SUCH_KEY_${process.pid}`), CALL_MS, 'resolve() of an unknown key'),
        undefined,
      );
      if (subject.known)
        assert.equal(
          await within(backend.resolve(subject.known.key), CALL_MS, `resolve(${JSON.stringify(subject.known.key)})`),
          subject.known.value,
        );
    });

    it('writes, reads, lists and removes a key, never echoing its value', async () => {
      const backend = await subject.create();
      if (backend.readOnly) return;
      assert.ok(backend.write, 'a backend that is not read-only offers write()');
      const key = `CONTRACT_KEY_${process.pid}`;
      const value = `contract-value-${process.pid}-s3cr3t`;
      const results = [await within(backend.write(key, value), CALL_MS, 'write()')];
      assert.equal(await backend.resolve(key), value);
      if (backend.read) assert.equal((await backend.read(key)).value, value);
      if (backend.list) {
        const listed = await backend.list();
        assert.ok(listed.keys.includes(key), `list() did not name ${key}`);
        results.push(listed);
      }
      if (backend.remove) {
        const removed = await backend.remove(key);
        assert.equal(removed.existed, true);
        assert.equal(await backend.resolve(key), undefined);
        assert.equal((await backend.remove(key)).existed, false);
        results.push(removed);
      }
      for (const result of results) {
        assert.equal(typeof result.tier, 'string');
        assert.ok(!JSON.stringify(result).includes(value), 'a result echoed the value');
      }
    });
  });
}
