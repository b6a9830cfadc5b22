import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempProject } from '../helpers/project.js';

const TOOLS = 'tools:\n  hi: {type: cli, command: echo, args: [hi]}\n';

describe('the key that signs checkpoints', () => {
  it('is made on first use in .factorly/log.key (0600), refused when others can read it', () => {
    const root = tempProject({ '.factorly/factorly.yaml': TOOLS });
    runCli(['call', 'hi'], root);
    const keyFile = join(root, '.factorly', 'log.key');
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    const printed = runCli(['logs', 'key'], root).stdout.trim();
    expect(readFileSync(join(root, '.factorly', 'log.pub'), 'utf8').trim()).toBe(printed);
    expect(readFileSync(keyFile, 'utf8')).toMatch(/^PRIVATE\+KEY\+factorly\.local\/log\/[0-9a-f]{16}\+[0-9a-f]{8}\+/);
    // chmod 644: the next checkpoint (one every event, from here on) is not signed with it, and the
    // call says so without failing.
    chmodSync(keyFile, 0o644);
    writeFileSync(join(root, '.factorly', 'factorly.yaml'), `log: {checkpoint_every: 1}\n${TOOLS}`);
    const call = runCli(['call', 'hi'], root);
    expect(call).toMatchObject({ status: 0, stdout: 'hi\n' });
    expect(call.stderr).toMatch(
      /warning: checkpoint not signed: log key \S+log\.key has insecure permissions 0644 \(must be 0600: run chmod 600 /,
    );
  });

  it(
    'can live in the project vault instead (log.key: vault); its verifier key is published beside the log',
    { timeout: 90_000 },
    () => {
      const root = tempProject({ '.factorly/factorly.yaml': `log: {key: vault}\n${TOOLS}` });
      const env = { FACTORLY_VAULT_PASSWORD: 'correct horse battery staple' };
      expect(runCli(['call', 'hi'], root, { env })).toMatchObject({ status: 0, stdout: 'hi\n' });
      expect(existsSync(join(root, '.factorly', 'log.key'))).toBe(false);
      const stored = runCli(['vault', 'get', 'FACTORLY_LOG_KEY'], root, { env }).stdout;
      expect(stored).toMatch(/^PRIVATE\+KEY\+factorly\.local\/log\//);
      const published = readFileSync(join(root, '.factorly', 'log.pub'), 'utf8').trim();
      expect(runCli(['logs', 'key'], root).stdout.trim()).toBe(published);
      // The log's own checkpoints verify with the published key, without the vault.
      expect(runCli(['logs', 'verify', '--json'], root)).toMatchObject({ status: 0 });
      const checkpoint = join(tempProject(), 'c.txt');
      expect(runCli(['logs', 'checkpoint', '-o', checkpoint], root, { env }).status).toBe(0);
      expect(runCli(['logs', 'verify', '--checkpoint', checkpoint], root).status).toBe(0);
    },
  );
});
