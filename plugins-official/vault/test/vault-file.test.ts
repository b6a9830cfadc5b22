import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FactorlyError, isErrorCode } from '@factorly/error-kit';
import { describe, expect, it } from 'vitest';
import { tempProject } from '../../../test/helpers/project.js';
import { DEFAULT_KDF } from '../src/crypto.js';
import { VaultFile } from '../src/vault-file.js';

const PASSWORD = Buffer.from('correct horse battery staple');

async function vaultWith(entries: Record<string, string>): Promise<string> {
  const path = join(tempProject(), 'vault.enc');
  const vault = await VaultFile.unlock(path, 'vault.enc', PASSWORD);
  for (const [key, value] of Object.entries(entries)) await vault.set(key, value);
  return path;
}

describe('vault file', () => {
  it('round-trips values, writes mode 0600 and keeps key names and values unreadable without the password', async () => {
    const path = await vaultWith({ GITHUB_TOKEN: 'ghp_visible_value', 'team/db.password': 'hunter2-hunter2' });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const raw = readFileSync(path);
    for (const text of ['GITHUB_TOKEN', 'team/db.password', 'ghp_visible_value', 'hunter2-hunter2']) {
      expect(raw.includes(Buffer.from(text))).toBe(false);
      expect(raw.includes(Buffer.from(Buffer.from(text).toString('base64')))).toBe(false);
    }
    const reopened = await VaultFile.unlock(path, 'vault.enc', PASSWORD);
    expect(reopened.names()).toEqual(['GITHUB_TOKEN', 'team/db.password']);
    expect(reopened.get('GITHUB_TOKEN')).toBe('ghp_visible_value');
    expect(reopened.get('__proto__')).toBeUndefined();
  });

  it('stores Argon2id cost of at least t=2, m=64 MiB in the header', async () => {
    const raw = readFileSync(await vaultWith({ K: 'v' }));
    expect(raw.subarray(0, 8).toString()).toBe('FCTLYVLT');
    expect(raw.readUInt8(8)).toBe(1);
    expect(raw.readUInt32BE(10)).toBeGreaterThanOrEqual(2);
    expect(raw.readUInt32BE(14)).toBeGreaterThanOrEqual(64 * 1024);
  });

  it('seals with a fresh nonce on every write: the same content never gives the same bytes', async () => {
    const path = await vaultWith({ K: 'same' });
    const first = readFileSync(path);
    await (await VaultFile.unlock(path, 'vault.enc', PASSWORD)).set('K', 'same');
    const second = readFileSync(path);
    expect(second.equals(first)).toBe(false);
    expect(second.subarray(67, 79).equals(first.subarray(67, 79))).toBe(false);
  });

  it('refuses a wrong password with its own message and leaves the file as it was', async () => {
    const path = await vaultWith({ K: 'v' });
    const before = readFileSync(path);
    const refused = VaultFile.unlock(path, '.factorly/vault.enc', Buffer.from('nope'));
    await expect(refused).rejects.toMatchObject({
      code: 'VAULT_WRONG_PASSWORD',
      message: 'wrong password for .factorly/vault.enc',
    });
    // The vault's errors are factorly's own: the same class, a code in factorly's table.
    const error: unknown = await refused.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FactorlyError);
    expect(isErrorCode((error as FactorlyError).code)).toBe(true);
    expect(readFileSync(path).equals(before)).toBe(true);
  });

  it('refuses a file with any one byte changed as corrupt (or, for the version byte, unsupported), never opening it', async () => {
    const path = await vaultWith({ K: 'value' });
    const original = readFileSync(path);
    const messages = new Set<string>();
    for (let i = 0; i < original.length; i++) {
      const tampered = Buffer.from(original);
      tampered[i] ^= 0x01;
      writeFileSync(path, tampered);
      const error = await VaultFile.unlock(path, 'v.enc', PASSWORD).then(
        () => undefined,
        (e: Error & { code: string }) => e,
      );
      expect(error?.code, `byte ${i}`).toMatch(i === 8 ? 'VAULT_UNSUPPORTED' : 'VAULT_CORRUPT');
      messages.add(error!.message);
    }
    expect([...messages].sort()).toEqual([
      'v.enc has vault format version 0; this factorly reads version 1 (upgrade factorly to open it)',
      'v.enc is corrupt or was modified (checksum mismatch); restore it from a backup',
      'v.enc is not a factorly vault file (corrupt or overwritten); restore it from a backup or remove it',
    ]);
  });

  it('tells tampering that also fixed the checksum apart from a wrong password', async () => {
    const path = await vaultWith({ K: 'value' });
    const tampered = Buffer.from(readFileSync(path));
    tampered[90] ^= 0x01;
    const { createHash } = await import('node:crypto');
    createHash('sha256')
      .update(tampered.subarray(0, tampered.length - 32))
      .digest()
      .copy(tampered, tampered.length - 32);
    writeFileSync(path, tampered);
    await expect(VaultFile.unlock(path, 'v.enc', PASSWORD)).rejects.toThrow(
      'v.enc failed authentication (it was modified); restore it from a backup',
    );
  });

  it('names an unsupported format version and a truncated file', async () => {
    const path = await vaultWith({ K: 'v' });
    const raw = readFileSync(path);
    const future = Buffer.from(raw);
    future[8] = 2;
    writeFileSync(path, future);
    await expect(VaultFile.unlock(path, 'v.enc', PASSWORD)).rejects.toThrow(
      'v.enc has vault format version 2; this factorly reads version 1 (upgrade factorly to open it)',
    );
    writeFileSync(path, raw.subarray(0, 40));
    await expect(VaultFile.unlock(path, 'v.enc', PASSWORD)).rejects.toThrow(
      'v.enc is corrupt (truncated to 40 bytes); restore it from a backup',
    );
  });

  it('raises a file written with a lower KDF cost to the default on the next write, keeping every value', async () => {
    const path = join(tempProject(), 'vault.enc');
    const weak = await VaultFile.unlock(path, 'v.enc', PASSWORD, { iterations: 1, memoryKiB: 1024, parallelism: 1 });
    await weak.set('OLD', 'kept');
    expect(readFileSync(path).readUInt32BE(14)).toBe(1024);
    const reopened = await VaultFile.unlock(path, 'v.enc', PASSWORD);
    await reopened.set('NEW', 'added');
    expect(readFileSync(path).readUInt32BE(14)).toBe(DEFAULT_KDF.memoryKiB);
    const last = await VaultFile.unlock(path, 'v.enc', PASSWORD);
    expect([last.get('OLD'), last.get('NEW')]).toEqual(['kept', 'added']);
  });

  it('sees what another writer stored since it unlocked, and keeps it when writing', async () => {
    const path = await vaultWith({ A: '1' });
    const one = await VaultFile.unlock(path, 'v.enc', PASSWORD);
    const two = await VaultFile.unlock(path, 'v.enc', PASSWORD);
    await one.set('B', '2');
    await two.refresh();
    expect(two.get('B')).toBe('2');
    await two.set('C', '3');
    expect((await VaultFile.unlock(path, 'v.enc', PASSWORD)).names()).toEqual(['A', 'B', 'C']);
    expect(existsSync(`${path}.lock`)).toBe(false);
  });

  it('deletes a key and reports whether it existed', async () => {
    const path = await vaultWith({ A: '1' });
    const vault = await VaultFile.unlock(path, 'v.enc', PASSWORD);
    expect(await vault.delete('A')).toBe(true);
    expect(await vault.delete('A')).toBe(false);
    expect(vault.names()).toEqual([]);
    chmodSync(path, 0o600);
  });
});
