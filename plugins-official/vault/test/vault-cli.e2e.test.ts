import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Recorded } from 'factorly/events';
import { runCli, runCliFedSlowly, tempProject } from '../../../test/helpers/project.js';
import { cliEnv, runCliAsync, runCliInPty, snapshot } from './cli-run.js';
import { leaksUnder } from '../../../test/helpers/leaks.js';
import { projectEvents } from '../../../test/helpers/events.js';

const CONFIG = { '.factorly/factorly.yaml': 'tools: {}\n' };

const vaultEvents = async (root: string): Promise<Recorded[]> =>
  (await projectEvents(root)).filter((event) => event.type === 'vault.accessed');

// Each case spawns the CLI several times; on a loaded machine that takes longer than the default timeout.
describe('factorly vault', { timeout: 120_000 }, () => {
  it('sets (argument or stdin), lists names, gets, deletes, uses --global and falls back project → global', async () => {
    const root = tempProject(CONFIG);
    const env = cliEnv(root, { FACTORLY_VAULT_PASSWORD: 'cli-password' });
    const cli = (args: string[], input?: string) => runCli(args, root, { env, input });
    expect(cli(['vault', 'set', 'API_KEY', 'value-from-arg'])).toMatchObject({
      status: 0,
      stdout: 'Stored API_KEY in the project vault\n',
    });
    expect(cli(['vault', 'set', 'PIPED'], 'value-from-stdin\n')).toMatchObject({ status: 0 });
    expect(cli(['vault', 'set', 'SHARED', 'global-value', '--global'])).toMatchObject({
      status: 0,
      stdout: 'Stored SHARED in the global vault\n',
    });
    expect(cli(['vault', 'list'])).toMatchObject({ status: 0, stdout: 'API_KEY\nPIPED\n' });
    expect(cli(['vault', 'list', '--global']).stdout).toBe('SHARED\n');
    expect(cli(['vault', 'get', 'PIPED'])).toMatchObject({ status: 0, stdout: 'value-from-stdin' });
    expect(cli(['vault', 'get', 'SHARED'])).toMatchObject({ status: 0, stdout: 'global-value' });
    expect(cli(['vault', 'get', 'NOPE'])).toMatchObject({
      status: 1,
      stdout: '',
      stderr: 'Error: secret "NOPE" not found in the vault\n',
    });
    expect(cli(['vault', 'delete', 'API_KEY'])).toMatchObject({
      status: 0,
      stdout: 'Deleted API_KEY from the project vault\n',
    });
    expect(cli(['vault', 'delete', 'API_KEY'])).toMatchObject({
      status: 1,
      stderr: 'Error: secret "API_KEY" not found in the project vault\n',
    });
    // A key that is not a key is a usage error: exit 2, as factorly's table of codes says.
    expect(cli(['vault', 'set', 'bad key', 'x'])).toMatchObject({
      status: 2,
      stderr:
        'Error: invalid vault key "bad key": use letters, digits, "_", ".", "-" or "/" (at most 128, not starting with a symbol other than "_")\n',
    });
    expect(cli(['vault', 'set', 'EMPTY'], '')).toMatchObject({
      status: 2,
      stderr: 'Error: no value given: pass it as an argument, pipe it on stdin, or type it at the prompt\n',
    });
    const events = (await vaultEvents(root)).map((e) => e.data);
    expect(events).toEqual([
      { op: 'set', key: 'API_KEY', tier: 'project' },
      { op: 'set', key: 'PIPED', tier: 'project' },
      { op: 'set', key: 'SHARED', tier: 'global' },
      { op: 'list', tier: 'project' },
      { op: 'list', tier: 'global' },
      { op: 'get', key: 'PIPED', tier: 'project' },
      { op: 'get', key: 'SHARED', tier: 'global' },
      { op: 'get', key: 'NOPE', tier: 'project' },
      { op: 'delete', key: 'API_KEY', tier: 'project' },
    ]);
    for (const value of ['value-from-arg', 'value-from-stdin', 'global-value'])
      expect(leaksUnder(root, value)).toEqual([]);
  });

  it('refuses a wrong password, a key file others can read and a tampered file, each with its message, changing nothing on disk', async () => {
    const root = tempProject(CONFIG);
    const good = cliEnv(root, { FACTORLY_VAULT_PASSWORD: 'the-right-one' });
    expect(runCli(['vault', 'set', 'K', 'v'], root, { env: good }).status).toBe(0);
    const before = snapshot(root);
    const refused = (env: NodeJS.ProcessEnv, expected: string) => {
      for (const args of [
        ['vault', 'get', 'K'],
        ['vault', 'set', 'K', 'new'],
      ]) {
        expect(runCli(args, root, { env }), args.join(' ')).toMatchObject({
          status: 1,
          stdout: '',
          stderr: `Error: ${expected}\n`,
        });
      }
    };
    refused(
      cliEnv(root, { FACTORLY_VAULT_PASSWORD: 'wrong' }),
      'wrong password: FACTORLY_VAULT_PASSWORD does not unlock the project vault .factorly/vault.enc',
    );
    expect(snapshot(root)).toEqual(before);

    const keyFile = join(root, '.factorly', 'vault.key');
    writeFileSync(keyFile, 'the-right-one\n');
    chmodSync(keyFile, 0o644);
    const withKeyFile = snapshot(root);
    refused(
      cliEnv(root),
      'vault key file .factorly/vault.key has insecure permissions 0644 (must be 0600: run chmod 600 .factorly/vault.key)',
    );
    expect(snapshot(root)).toEqual(withKeyFile);
    chmodSync(keyFile, 0o600);
    expect(runCli(['vault', 'get', 'K'], root, { env: cliEnv(root) })).toMatchObject({ status: 0, stdout: 'v' });

    const vaultPath = join(root, '.factorly', 'vault.enc');
    const tampered = readFileSync(vaultPath);
    tampered[tampered.length - 40] ^= 0x80;
    writeFileSync(vaultPath, tampered);
    const afterTamper = snapshot(root);
    refused(good, '.factorly/vault.enc is corrupt or was modified (checksum mismatch); restore it from a backup');
    expect(snapshot(root)).toEqual(afterTamper);
  });

  it('stores a piped value exactly as written, however slowly it comes: only one trailing newline is dropped', async () => {
    const root = tempProject(CONFIG);
    const env = cliEnv(root, { FACTORLY_VAULT_PASSWORD: 'piped' });
    const get = (key: string): unknown => JSON.parse(runCli(['vault', 'get', key, '--json'], root, { env }).stdout);
    // Spaces around it and lines inside it are part of a secret (a PEM key, a padded token).
    const exact = '  two\nlines  \n\n';
    expect(runCli(['vault', 'set', 'EXACT'], root, { env, input: exact })).toMatchObject({ status: 0, stderr: '' });
    expect(get('EXACT')).toMatchObject({ value: '  two\nlines  \n' });
    // A producer still writing after the process started: every part is kept, none taken for an argument.
    const parts = ['part-one ', 'part-two ', 'part-three'];
    const slow = await runCliFedSlowly(['vault', 'set', 'SLOW'], root, parts, { gapMs: 300, env });
    expect(slow).toMatchObject({ status: 0, stdout: 'Stored SLOW in the project vault\n', stderr: '' });
    expect(get('SLOW')).toMatchObject({ value: 'part-one part-two part-three' });
  });

  it('lets several processes write different keys at the same time: all succeed and the file decrypts with every key', async () => {
    const root = tempProject(CONFIG);
    const env = cliEnv(root, { FACTORLY_VAULT_PASSWORD: 'concurrent' });
    const keys = ['ONE', 'TWO', 'THREE', 'FOUR'];
    const runs = await Promise.all(keys.map((key) => runCliAsync(['vault', 'set', key, `value-${key}`], root, env)));
    for (const run of runs) expect(run).toMatchObject({ status: 0, stderr: '' });
    expect(runCli(['vault', 'list'], root, { env }).stdout).toBe('FOUR\nONE\nTHREE\nTWO\n');
    for (const key of keys) expect(runCli(['vault', 'get', key], root, { env }).stdout).toBe(`value-${key}`);
  });

  it('prompts on a terminal without echo: value and new password, then 3 attempts to unlock', async () => {
    const root = tempProject(CONFIG);
    const env = cliEnv(root);
    const created = await runCliInPty(['vault', 'set', 'TTY_KEY'], root, env, [
      { after: 'Value: ', send: 'typed-secret-value\r' },
      { after: 'New vault password (project', send: 'typed-password-1\r' },
      { after: 'Repeat the password: ', send: 'typed-password-1\r' },
    ]);
    expect(created.status).toBe(0);
    expect(created.screen).toContain('Stored TTY_KEY in the project vault');
    expect(created.screen).not.toContain('typed-secret-value');
    expect(created.screen).not.toContain('typed-password-1');

    const unlocked = await runCliInPty(['vault', 'get', 'TTY_KEY'], root, env, [
      { after: 'Vault password (project): ', send: 'wrong-1\r' },
      { after: 'Vault password (project): ', send: 'typed-password-1\r' },
    ]);
    expect(unlocked.screen).toContain('Incorrect password, try again (2 attempts left).');
    expect(unlocked.screen).not.toContain('wrong-1');
    expect(unlocked.screen.trimEnd().endsWith('typed-secret-value')).toBe(true);

    const failed = await runCliInPty(
      ['vault', 'list'],
      root,
      env,
      [1, 2, 3].map(() => ({ after: 'Vault password (project): ', send: 'nope-nope\r' })),
    );
    expect(failed.status).toBe(1);
    expect(failed.screen).toContain('Incorrect password, try again (1 attempt left).');
    expect(failed.screen).toContain(
      'Error: vault unlock failed after 3 attempts: wrong password for .factorly/vault.enc',
    );
  });

  it('says how to unlock when there is no password, key file or terminal', () => {
    const root = tempProject(CONFIG);
    expect(
      runCli(['vault', 'set', 'K', 'v'], root, { env: cliEnv(root, { FACTORLY_VAULT_PASSWORD: 'p' }) }).status,
    ).toBe(0);
    expect(runCli(['vault', 'get', 'K'], root, { env: cliEnv(root) }).stderr).toBe(
      'Error: the project vault (.factorly/vault.enc) is locked: set FACTORLY_VAULT_PASSWORD, or put the password in .factorly/vault.key (mode 0600)\n',
    );
    expect(runCli(['vault', 'get', 'K'], root, { env: cliEnv(root, { FACTORLY_VAULT_PASSWORD: '' }) }).stderr).toBe(
      'Error: FACTORLY_VAULT_PASSWORD is set but empty\n',
    );
  });
});
