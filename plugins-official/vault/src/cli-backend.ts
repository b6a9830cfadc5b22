import { spawn } from 'node:child_process';
import type { SecretBackend } from 'factorly';
import { FactorlyError } from '@factorly/error-kit';
import { userEnvironment } from '@factorly/process-kit';

/** One `vault_backends` entry: read-only secrets from a command such as a password manager's CLI. */
export interface CliBackendSpec {
  name: string;
  get: { command: string; args: string[] };
  list?: { command: string; args: string[] };
}

const TIMEOUT_MS = 30_000;
const KEY = /\{\{\s*key\s*\}\}/g;

/**
 * `{{name:KEY}}` through a configured command: `{{key}}` in its args becomes the key, stdout
 * (without the trailing newline) is the value. No shell; the command gets the person's environment
 * (it usually needs the password manager's session) minus factorly's own secret variables. A failing command is an error naming the
 * backend and exit code, never a silent empty value.
 */
export class CliBackend implements SecretBackend {
  readonly readOnly = true;

  constructor(private readonly spec: CliBackendSpec) {}

  get name(): string {
    return this.spec.name;
  }

  /** An empty answer is no value (the reference then says the secret is not set), never an empty secret. */
  async resolve(key: string): Promise<string | undefined> {
    const value = (await this.run('get', this.spec.get, key)).replace(/\r?\n$/, '');
    return value === '' ? undefined : value;
  }

  async read(key: string): Promise<{ tier: string; value?: string }> {
    return { tier: this.spec.name, value: await this.resolve(key) };
  }

  async list(): Promise<{ tier: string; keys: string[] }> {
    if (!this.spec.list)
      throw new FactorlyError('VAULT_BACKEND', `backend "${this.spec.name}" has no list command configured`);
    const out = await this.run('list', this.spec.list, '');
    return {
      tier: this.spec.name,
      keys: out
        .split(/\r?\n/)
        .map((line) => line.trim())
        .filter(Boolean),
    };
  }

  private run(op: string, command: { command: string; args: string[] }, key: string): Promise<string> {
    const args = command.args.map((arg) => arg.replace(KEY, () => key));
    return new Promise((resolve, reject) => {
      const child = spawn(command.command, args, {
        env: userEnvironment(),
        stdio: ['ignore', 'pipe', 'pipe'],
        timeout: TIMEOUT_MS,
      });
      const stdout: Buffer[] = [];
      const stderr: Buffer[] = [];
      child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
      child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
      child.on('error', (error) =>
        reject(new FactorlyError('VAULT_BACKEND', `backend "${this.spec.name}" ${op} failed: ${error.message}`)),
      );
      child.on('close', (code, signal) => {
        if (code === 0) return resolve(Buffer.concat(stdout).toString('utf8'));
        const why = signal
          ? `killed by ${signal}${signal === 'SIGTERM' ? ' (timed out after 30s?)' : ''}`
          : `exit ${code}`;
        const detail = Buffer.concat(stderr).toString('utf8').trim();
        reject(
          new FactorlyError(
            'VAULT_BACKEND',
            `backend "${this.spec.name}" ${op} failed (${why})${detail ? `: ${detail}` : ''}`,
          ),
        );
      });
    });
  }
}

const NAME = /^[A-Za-z0-9_][A-Za-z0-9_-]*$/;
const RESERVED = new Set(['vault', 'env']);

/** Validates the `vault_backends` setting; every problem is one line naming the backend and key to fix. */
export function readBackendSpecs(setting: unknown, where: string): CliBackendSpec[] {
  if (setting === undefined || setting === null) return [];
  if (typeof setting !== 'object' || Array.isArray(setting))
    throw configError(
      `${where}: "vault_backends" must be a mapping of backend names to {type: cli, get: {command, args}}`,
    );
  return Object.entries(setting as Record<string, unknown>).map(([name, raw]) => readOne(name, raw, where));
}

function readOne(name: string, raw: unknown, where: string): CliBackendSpec {
  const at = `${where}: vault backend "${name}"`;
  if (!NAME.test(name)) throw configError(`${at}: the name may use letters, digits, "_" and "-" only`);
  if (RESERVED.has(name)) throw configError(`${at}: "${name}" is built in; choose another name`);
  const entry = (raw ?? {}) as Record<string, unknown>;
  if (entry.type !== undefined && entry.type !== 'cli')
    throw configError(`${at}: type ${JSON.stringify(entry.type)} is not supported (the only type is "cli")`);
  const get = readCommand(entry.get, `${at}: "get"`);
  if (!get) throw configError(`${at} has no get command configured`);
  return { name, get, list: readCommand(entry.list, `${at}: "list"`) };
}

function readCommand(raw: unknown, at: string): { command: string; args: string[] } | undefined {
  if (raw === undefined) return undefined;
  const { command, args } = (raw ?? {}) as Record<string, unknown>;
  if (typeof command !== 'string' || command.trim() === '') throw configError(`${at} needs a "command"`);
  if (args !== undefined && (!Array.isArray(args) || args.some((a) => typeof a === 'object')))
    throw configError(`${at} has "args" that is not a list of strings`);
  return { command, args: ((args as unknown[] | undefined) ?? []).map(String) };
}

function configError(message: string): FactorlyError {
  return new FactorlyError('CONFIG_INVALID', `config: ${message}`);
}
