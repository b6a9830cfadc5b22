import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import type { SecretBackend } from '../contracts/extensions.js';
import { join, relative } from 'node:path';
import { newSignerKey, NoteError, signerFromKey, type NoteSigner } from '../events/signed-note.js';
import { FactorlyError } from '../base/errors.js';

export type LogSigner = NoteSigner & { verifierKey: string };

/** The key that signs a project's checkpoints: `.factorly/log.key`, mode 0600, made on first use. */
export function logKeyPath(stateDir: string): string {
  return join(stateDir, 'log.key');
}

/** Its verifier key, written beside it when it is made (public: checking needs no secret). */
export function verifierKeyPath(stateDir: string): string {
  return join(stateDir, 'log.pub');
}

/** The verifier key the project published, when it has one. */
export function publishedVerifierKey(stateDir: string): string | undefined {
  const path = verifierKeyPath(stateDir);
  return existsSync(path) ? readFileSync(path, 'utf8').trim() : undefined;
}

/** The entry that holds the signing key when `log.key` names a secret backend. */
export const LOG_KEY_ENTRY = 'FACTORLY_LOG_KEY';

/**
 * The signing key kept in a secret backend instead of a file (`log.key: <backend>`): read from its
 * project tier, or made and stored there on first use. Its verifier key is published in `.factorly/log.pub`.
 */
export async function loadBackendLogKey(
  backend: SecretBackend | undefined,
  backendName: string,
  stateDir: string,
  name: string,
): Promise<LogSigner> {
  if (!backend?.read || !backend.write)
    throw new FactorlyError(
      'LOG_KEY',
      `log.key is "${backendName}", but no writable secret backend of that name is installed`,
    );
  const stored = (await backend.read(LOG_KEY_ENTRY, { tier: 'project' })).value;
  const text = stored ?? newSignerKey(name);
  let signer: LogSigner;
  try {
    signer = signerFromKey(text);
  } catch (error) {
    throw new FactorlyError(
      'LOG_KEY',
      `${backendName} entry ${LOG_KEY_ENTRY} is not a factorly log key: ${(error as Error).message}`,
    );
  }
  if (stored === undefined) await backend.write(LOG_KEY_ENTRY, text, { tier: 'project' });
  publish(stateDir, signer);
  return signer;
}

/** Best effort: a project read from a read-only copy still verifies with the key itself. */
function publish(stateDir: string, signer: LogSigner): void {
  try {
    if (publishedVerifierKey(stateDir) !== signer.verifierKey)
      writeFileSync(verifierKeyPath(stateDir), `${signer.verifierKey}\n`);
  } catch {
    // not writable here: nothing is lost, log.pub is a convenience
  }
}

/**
 * Loads the signing key, making one named `name` (the log's origin) when there is none yet. The
 * file is created exclusively, so two processes signing their first checkpoint at once end up
 * with the same key. A key file others can read is refused.
 */
export function loadLogKey(
  stateDir: string,
  name: string,
  options: { create: boolean } = { create: true },
): LogSigner | undefined {
  const path = logKeyPath(stateDir);
  if (!existsSync(path)) {
    if (!options.create) return undefined;
    try {
      writeFileSync(path, `${newSignerKey(name)}\n`, { mode: 0o600, flag: 'wx' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST')
        throw keyError(path, `cannot be created: ${(error as Error).message}`);
    }
  }
  const signer = readKey(path);
  publish(stateDir, signer);
  return signer;
}

function readKey(path: string): LogSigner {
  const mode = statSync(path).mode & 0o777;
  if ((mode & 0o077) !== 0) {
    throw keyError(
      path,
      `has insecure permissions ${mode.toString(8).padStart(4, '0')} (must be 0600: run chmod 600 ${shown(path)})`,
    );
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
