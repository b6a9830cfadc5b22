import { existsSync, readFileSync } from 'node:fs';
import { verifierFromKey, NoteError, type NoteVerifier } from '../events/signed-note.js';
import type { GivenCheckpoint } from '../events/verify-checkpoints.js';
import { FactorlyError } from '../base/errors.js';
import { loadLogKey, logKeyPath, publishedVerifierKey, verifierKeyPath } from './log-key.js';

/** Reads a text file an auditor was handed; anything unreadable is exit 2, naming the file. */
export function readEvidenceFile(path: string, what: string): string {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    throw new FactorlyError(
      'LOG_UNREADABLE',
      `cannot read ${what} ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new FactorlyError('LOG_UNREADABLE', `${what} ${path} is not UTF-8 text`);
  }
}

export function readCheckpoints(paths: readonly string[]): GivenCheckpoint[] {
  return paths.map((path) => ({ name: path, note: readEvidenceFile(path, 'checkpoint') }));
}

/**
 * The keys checkpoints are checked with: each `--key` (a verifier key file, or the key itself),
 * else the project's own (its key file, or the verifier key it published) when it has one.
 */
/**
 * The project's verifier key: from its signing key when this process can read it, else the published
 * one (`log.pub`), which is all checking needs, so an auditor who may not read `log.key` still
 * verifies. A key it may not read with nothing published instead cannot be checked with: exit 2.
 */
export function projectVerifierKey(stateDir: string): string | undefined {
  try {
    return loadLogKey(stateDir, 'unused', { create: false })?.verifierKey ?? publishedVerifierKey(stateDir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EACCES' && code !== 'EPERM') throw error;
    const published = publishedVerifierKey(stateDir);
    if (published !== undefined) return published;
    throw new FactorlyError(
      'LOG_UNREADABLE',
      `cannot read the log key ${logKeyPath(stateDir)} (${code}) and the project publishes no verifier key (${verifierKeyPath(stateDir)}): pass --key FILE`,
    );
  }
}

export function readVerifiers(keys: readonly string[], stateDir: string | undefined): NoteVerifier[] {
  if (keys.length === 0) {
    const own = stateDir === undefined ? undefined : projectVerifierKey(stateDir);
    return own ? [verifierFromKey(own)] : [];
  }
  return keys.map((key) => {
    const text = existsSync(key) ? readEvidenceFile(key, 'verifier key') : key;
    try {
      return verifierFromKey(text.trim());
    } catch (error) {
      if (error instanceof NoteError)
        throw new FactorlyError(
          'LOG_UNREADABLE',
          `${existsSync(key) ? `verifier key ${key}` : '--key'}: ${error.message}`,
        );
      throw error;
    }
  });
}
