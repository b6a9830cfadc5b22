// Vault: time to unlock (Argon2id with the shipped parameters + index decrypt) and to scrub output.
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_KDF } from '../../plugins-official/vault/dist/src/crypto.js';
import { scrubSecrets } from '../../plugins-official/vault/dist/src/scrub.js';
import { VaultFile } from '../../plugins-official/vault/dist/src/vault-file.js';
import { now, round, summarize } from './stats.mjs';

const TARGET_MS = 1000;

/**
 * @param {{ tmpRoot: string, runs: number, log?: (line: string) => void }} opts
 */
export async function runVaultBench(opts) {
  const say = opts.log ?? (() => {});
  const failures = [];
  const dir = mkdtempSync(join(opts.tmpRoot, 'vault-'));
  try {
    const path = join(dir, 'vault.enc');
    const password = Buffer.from('bench password');
    const writer = await VaultFile.unlock(path, 'vault.enc', password);
    for (let i = 0; i < 20; i++) await writer.set(`KEY_${i}`, `value-${i}-${'x'.repeat(40)}`);
    const unlock = [];
    for (let i = 0; i < opts.runs; i++) {
      const t0 = now();
      const vault = await VaultFile.unlock(path, 'vault.enc', password);
      const value = vault.get('KEY_7');
      unlock.push(now() - t0);
      if (value !== `value-7-${'x'.repeat(40)}`) failures.push('vault: unlocked vault returned the wrong value');
    }
    const unlockStats = summarize(unlock);
    say(`  unlock median ${unlockStats.medianMs} ms`);

    const secrets = new Map([
      ['vault:A', 'sk-live-0123456789abcdef'],
      ['vault:B', 'p@ss w/"q\\é'],
      ['env:C', 'another-secret-value'],
    ]);
    const text = `${'lorem ipsum dolor sit amet, '.repeat(36_000)} sk-live-0123456789abcdef`;
    const scrub = [];
    for (let i = 0; i < opts.runs; i++) {
      const t0 = now();
      const out = scrubSecrets(text, secrets);
      scrub.push(now() - t0);
      if (!out.endsWith('[REDACTED:A]')) failures.push('vault: scrubbing missed the secret');
    }
    const scrubStats = summarize(scrub);
    return {
      failures,
      result: {
        kdf: DEFAULT_KDF,
        unlock: unlockStats,
        meetsTarget: unlockStats.medianMs < TARGET_MS,
        scrub: { ...scrubStats, bytes: text.length },
      },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function vaultRows(result) {
  if (!result) return [{ benchmark: 'vault', value: 'failed', unit: '', notes: 'see failures' }];
  const { kdf, unlock, scrub } = result;
  return [
    {
      benchmark: 'vault unlock (Argon2id + index), median',
      value: unlock.medianMs,
      unit: 'ms',
      notes: `t=${kdf.iterations} m=${kdf.memoryKiB / 1024} MiB p=${kdf.parallelism}; n=${unlock.n}, max ${unlock.maxMs}; target <${TARGET_MS} ms: ${result.meetsTarget ? 'MET' : 'NOT MET'}`,
    },
    {
      benchmark: 'vault scrub 1 MiB output, 3 secrets, median',
      value: scrub.medianMs,
      unit: 'ms',
      notes: `${round(scrub.bytes / 2 ** 20, 2)} MiB; every encoded form`,
    },
  ];
}
