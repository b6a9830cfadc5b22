import { existsSync, readFileSync, statSync } from 'node:fs';
import { FactorlyError } from '@factorly/error-kit';
import { processTerminal, readHidden, type Terminal } from './prompt.js';
import { VaultFile } from './vault-file.js';

/** One vault file and where its password may come from. */
export interface TierPaths {
  tier: 'project' | 'global';
  file: string;
  keyFile: string;
  /** How paths appear in messages. */
  shown: string;
  shownKeyFile: string;
}

export const PASSWORD_ENV = 'FACTORLY_VAULT_PASSWORD';
const ATTEMPTS = 3;

/**
 * Unlocks a tier with, in order: `FACTORLY_VAULT_PASSWORD`, the tier's key file (refused unless
 * mode 0600), or a no-echo prompt on a terminal (3 attempts). A wrong password from the variable or
 * the key file fails at once: retrying the same text cannot help.
 */
export async function unlockTier(
  paths: TierPaths,
  terminal: Terminal | undefined = processTerminal(),
): Promise<VaultFile> {
  const fromEnv = process.env[PASSWORD_ENV];
  if (fromEnv !== undefined) {
    if (fromEnv === '') throw new FactorlyError('VAULT_LOCKED', `${PASSWORD_ENV} is set but empty`);
    return withSource(paths, Buffer.from(fromEnv, 'utf8'), PASSWORD_ENV);
  }
  const fromFile = readKeyFile(paths);
  if (fromFile) return withSource(paths, fromFile, `key file ${paths.shownKeyFile}`);
  if (terminal) return prompted(paths, terminal);
  throw new FactorlyError(
    'VAULT_LOCKED',
    `the ${paths.tier} vault (${paths.shown}) is locked: set ${PASSWORD_ENV}, or put the password in ${paths.shownKeyFile} (mode 0600)`,
  );
}

async function withSource(paths: TierPaths, password: Buffer, source: string): Promise<VaultFile> {
  try {
    return await VaultFile.unlock(paths.file, paths.shown, password);
  } catch (error) {
    if ((error as FactorlyError).code !== 'VAULT_WRONG_PASSWORD') throw error;
    throw new FactorlyError(
      'VAULT_WRONG_PASSWORD',
      `wrong password: ${source} does not unlock the ${paths.tier} vault ${paths.shown}`,
    );
  }
}

/** The key file's password, or undefined when there is none; refuses files others can read. */
function readKeyFile(paths: TierPaths): Buffer | undefined {
  if (!existsSync(paths.keyFile)) return undefined;
  const mode = statSync(paths.keyFile).mode & 0o777;
  if ((mode & 0o077) !== 0) {
    const octal = mode.toString(8).padStart(4, '0');
    throw new FactorlyError(
      'VAULT_KEY_FILE',
      `vault key file ${paths.shownKeyFile} has insecure permissions ${octal} (must be 0600: run chmod 600 ${paths.shownKeyFile})`,
    );
  }
  const text = readFileSync(paths.keyFile, 'utf8').replace(/\r?\n$/, '');
  if (text === '') throw new FactorlyError('VAULT_KEY_FILE', `vault key file ${paths.shownKeyFile} is empty`);
  return Buffer.from(text, 'utf8');
}

async function prompted(paths: TierPaths, terminal: Terminal): Promise<VaultFile> {
  if (!existsSync(paths.file)) return createPrompted(paths, terminal);
  for (let attempt = 1; ; attempt++) {
    const password = await ask(terminal, `Vault password (${paths.tier}): `);
    try {
      return await VaultFile.unlock(paths.file, paths.shown, Buffer.from(password, 'utf8'));
    } catch (error) {
      if ((error as FactorlyError).code !== 'VAULT_WRONG_PASSWORD') throw error;
      const left = ATTEMPTS - attempt;
      if (left === 0)
        throw new FactorlyError(
          'VAULT_WRONG_PASSWORD',
          `vault unlock failed after ${ATTEMPTS} attempts: wrong password for ${paths.shown}`,
        );
      terminal.output.write(`Incorrect password, try again (${left} attempt${left === 1 ? '' : 's'} left).\n`);
    }
  }
}

async function createPrompted(paths: TierPaths, terminal: Terminal): Promise<VaultFile> {
  const password = await ask(terminal, `New vault password (${paths.tier}, creates ${paths.shown}): `);
  const again = await ask(terminal, 'Repeat the password: ');
  if (password !== again) throw new FactorlyError('VAULT_LOCKED', 'the two passwords differ; nothing was written');
  return VaultFile.unlock(paths.file, paths.shown, Buffer.from(password, 'utf8'));
}

async function ask(terminal: Terminal, question: string): Promise<string> {
  let answer: string;
  try {
    answer = await readHidden(terminal, question);
  } catch (error) {
    throw new FactorlyError('VAULT_LOCKED', `vault password: ${(error as Error).message}`);
  }
  if (answer === '') throw new FactorlyError('VAULT_LOCKED', 'vault password cannot be empty');
  return answer;
}
