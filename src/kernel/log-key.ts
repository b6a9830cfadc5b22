import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { newSignerKey, NoteError, signerFromKey, type NoteSigner } from '../events/signed-note.js';
import { FactorlyError } from './base/errors.js';

export type LogSigner = NoteSigner & { verifierKey: string };

/** The key that signs a project's checkpoints: `.factorly/log.key`, mode 0600, made on first use. */
export function logKeyPath(stateDir: string): string {
  return join(stateDir, 'log.key');
}

/**
 * Loads the signing key, making one named `name` (the log's origin) when there is none yet. The
 * file is created exclusively, so two processes signing their first checkpoint at once end up
 * with the same key. A key file others can read is refused, as the vault's key file is.
 */
export function loadLogKey(stateDir: string, name: string, options: { create: boolean } = { create: true }): LogSigner | undefined {
  const path = logKeyPath(stateDir);
  if (!existsSync(path)) {
    if (!options.create) return undefined;
    try {
      writeFileSync(path, `${newSignerKey(name)}\n`, { mode: 0o600, flag: 'wx' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw keyError(path, `cannot be created: ${(error as Error).message}`);
    }
  }
  return readKey(path);
}

function readKey(path: string): LogSigner {
  const mode = statSync(path).mode & 0o777;
  if ((mode & 0o077) !== 0) {
    throw keyError(path, `has insecure permissions ${mode.toString(8).padStart(4, '0')} (must be 0600: run chmod 600 ${shown(path)})`);
  }
  try {
    return signerFromKey(readFileSync(path, 'utf8'));
  } catch (error) {
    if (error instanceof NoteError) throw keyError(path, `is not a factorly log key: ${error.message}`);
    throw error;
  }
}

function keyError(path: string, problem: string): FactorlyError {
  return new FactorlyError('LOG_KEY', `log key ${shown(path)} ${problem}`);
}

function shown(path: string): string {
  return relative(process.cwd(), path) || path;
}
