import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Kernel } from 'factorly/testing';
import { startTestKernel } from '../../../test/helpers/kernel.js';
import { plugin as builtinsPlugin } from '../src/plugin.js';
import { shellProblem } from '../src/shell-guard.js';

/** One byte short of the 1 MiB cap, then a two-byte character the cap falls inside of. */
const WIDE = `${'a'.repeat(1024 * 1024 - 1)}é and more`;

let server: Server;
let base: string;
beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/ok') res.end('fine');
    else if (req.url === '/wide') res.end(WIDE);
    else if (req.url === '/hop') res.writeHead(302, { location: '/secret' }).end();
    else res.end('secret');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

let kernel: Kernel | undefined;
afterEach(async () => {
  await kernel?.stop();
  kernel = undefined;
});

async function start(yaml = 'tools: {}\n') {
  kernel = (await startTestKernel(yaml, [builtinsPlugin])).kernel;
  return kernel;
}

const call = (tool: string, params: Record<string, string>) => kernel!.pipeline.call({ tool, params, iface: 'mcp' });

describe('factorly.fetch SSRF guard', () => {
  it('refuses loopback, IPv6 loopback, metadata and a name that resolves to a private address, each with its reason', async () => {
    await start();
    expect((await call('factorly.fetch', { url: `${base}/ok` })).error).toBe(
      'URL blocked by safety guard: localhost access denied (127.0.0.1; use shadow.allow_urls to allow it)',
    );
    expect((await call('factorly.fetch', { url: 'http://[::1]:1/' })).error).toBe(
      'URL blocked by safety guard: localhost access denied (::1; use shadow.allow_urls to allow it)',
    );
    expect((await call('factorly.fetch', { url: 'http://169.254.169.254/latest/meta-data/' })).error).toBe(
      'URL blocked by safety guard: cloud metadata endpoint (169.254.169.254)',
    );
    expect((await call('factorly.fetch', { url: 'http://10.1.2.3/' })).error).toBe(
      'URL blocked by safety guard: private network access denied (10.1.2.3; use shadow.allow_urls to allow it)',
    );
    expect((await call('factorly.fetch', { url: 'file:///etc/passwd' })).error).toBe(
      'URL blocked by safety guard: file:// protocol not allowed',
    );
    // This machine's own name resolves to one of its addresses (loopback or private): refused at connect time.
    const port = new URL(base).port;
    const named = await call('factorly.fetch', { url: `http://${hostname()}:${port}/ok` });
    expect(named).toMatchObject({ status: 'error', output: '' });
    expect(named.error).toMatch(
      new RegExp(
        `^URL blocked by safety guard: (localhost|private network) access denied \\(.+; use shadow.allow_urls to allow it\\) \\(${hostname()} resolves to it\\)$`,
      ),
    );
  });

  it('lets exactly the allow_urls entry through and re-checks the redirect it answers with', async () => {
    await start(`tools:\n  factorly.fetch: {type: builtin, shadow: {allow_urls: ["${base}/ok", "${base}/hop"]}}\n`);
    expect(await call('factorly.fetch', { url: `${base}/ok` })).toMatchObject({ status: 'success', output: 'fine' });
    expect((await call('factorly.fetch', { url: `${base}/okay` })).error).toMatch(
      /^URL blocked by safety guard: localhost access denied/,
    );
    expect((await call('factorly.fetch', { url: `${base}/secret` })).error).toMatch(
      /^URL blocked by safety guard: localhost access denied/,
    );
    expect((await call('factorly.fetch', { url: `${base}/hop` })).error).toBe(
      `URL blocked by safety guard: localhost access denied (127.0.0.1; use shadow.allow_urls to allow it) (redirected to ${base}/secret)`,
    );
  });
});

describe('factorly.fetch and factorly.file.read cut long text', () => {
  it('at a character boundary, never inside a character (no U+FFFD where the cap falls)', async () => {
    const k = await start(`tools:\n  factorly.fetch: {type: builtin, shadow: {allow_urls: ["${base}/wide"]}}\n`);
    writeFileSync(join(k.paths.baseDir, 'wide.txt'), WIDE);
    // Compared as facts, not as text: a failure must not print a megabyte.
    const cut = (output: string) => ({ kept: output.indexOf('\n'), replaced: output.includes('\uFFFD') });
    const fetched = (await call('factorly.fetch', { url: `${base}/wide` })).output;
    expect(cut(fetched)).toEqual({ kept: 1024 * 1024 - 1, replaced: false });
    expect(fetched.endsWith('a\n[factorly: response cut at 1048576 bytes]')).toBe(true);
    const read = (await call('factorly.file.read', { path: 'wide.txt' })).output;
    expect(cut(read)).toEqual({ kept: 1024 * 1024 - 1, replaced: false });
    expect(read.endsWith(`a\n[factorly: file cut at 1048576 bytes of ${Buffer.byteLength(WIDE)}]`)).toBe(true);
  });
});

describe('factorly.shell', () => {
  it('matches the guard per pattern: an allow entry lifts only the match it covers', () => {
    expect(shellProblem('rm -rf ./build', [])).toBe(
      'command blocked by safety guard: matches denied pattern "rm -rf ."',
    );
    expect(shellProblem('rm -rf ./build', ['rm -rf ./build'])).toBeUndefined();
    expect(shellProblem('rm -rf ./build; rm -rf /', ['rm -rf ./build'])).toBe(
      'command blocked by safety guard: matches denied pattern "rm -rf /"',
    );
    expect(shellProblem('rm -rf /; echo ./build', ['./build'])).toBe(
      'command blocked by safety guard: matches denied pattern "rm -rf /"',
    );
    expect(shellProblem('psql -c "drop table users"', ['rm -rf ./build'])).toBe(
      'command blocked by safety guard: matches denied pattern "DROP TABLE"',
    );
    expect(shellProblem('ls -la', [])).toBeUndefined();
  });

  it('runs in the project, asks for confirmation by default, and kills the whole process group on timeout', async () => {
    const k = await start(
      `tools:\n  factorly.shell: {type: builtin, timeout: 500ms, shadow: {allow_patterns: ["rm -rf ./tmp"]}}\n`,
    );
    const tool = k.registry.get('factorly.shell')!;
    expect(tool.shadow).toEqual({ confirm: true, allow_patterns: ['rm -rf ./tmp'] });
    expect(await call('factorly.shell', { command: 'mkdir -p tmp && rm -rf ./tmp && pwd' })).toMatchObject({
      status: 'success',
      output: `${k.paths.baseDir}\n`,
    });
    expect(await call('factorly.shell', { command: 'echo out; echo err >&2; exit 3' })).toMatchObject({
      output: 'out\n',
      error: 'err\n',
      exitCode: 3,
    });
    const marker = join(k.paths.baseDir, 'survivor');
    const slow = await call('factorly.shell', { command: `(sleep 1.5; touch ${marker}) & sleep 10` });
    expect(slow).toMatchObject({ status: 'timeout', exitCode: 124, error: 'command timed out after 500ms' });
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(existsSync(marker)).toBe(false);
  });
});

describe('factorly.file.read / write', () => {
  it('reads and writes inside the project and refuses escapes, symlinks out and secrets', async () => {
    const k = await start();
    const root = k.paths.baseDir;
    writeFileSync(join(root, 'notes.txt'), 'hello');
    writeFileSync(join(root, '.env'), 'TOKEN=x');
    mkdirSync(join(root, 'links'));
    symlinkSync('/etc', join(root, 'links', 'etc'));
    expect(await call('factorly.file.read', { path: 'notes.txt' })).toMatchObject({
      status: 'success',
      output: 'hello',
    });
    expect((await call('factorly.file.read', { path: '../outside.txt' })).error).toMatch(
      /^path "\.\.\/outside\.txt" is outside project directory ".+"/,
    );
    expect((await call('factorly.file.read', { path: 'links/etc/hostname' })).error).toMatch(
      /^path "links\/etc\/hostname" is outside project directory ".+" \(resolved to \/etc\/hostname\)$/,
    );
    expect((await call('factorly.file.read', { path: '.env' })).error).toBe(
      'path blocked by safety guard: matches denied pattern ".env"',
    );
    const written = await call('factorly.file.write', { path: 'out/deep/a.txt', content: 'héllo' });
    expect(written.output).toMatch(/^wrote 6 bytes to .+\/out\/deep\/a\.txt$/);
    expect(readFileSync(join(root, 'out', 'deep', 'a.txt'), 'utf8')).toBe('héllo');
    expect((await call('factorly.file.write', { path: 'links/etc/evil', content: 'x' })).error).toMatch(
      /is outside project directory/,
    );
  });

  it("refuses factorly's own files (vault, keys, log, config), also through .., symlinks and allow_paths", async () => {
    const k = await start(`tools:
  factorly.file.read: {shadow: {allow_paths: [.factorly/vault.enc]}}
`);
    const root = k.paths.baseDir;
    const state = join(root, '.factorly');
    writeFileSync(join(state, 'vault.enc'), 'ciphertext');
    mkdirSync(join(state, 'keys'));
    writeFileSync(join(state, 'keys', 'log.key'), 'private');
    writeFileSync(join(state, 'events.lmdb'), 'log');
    mkdirSync(join(root, 'sub', 'nested', '.factorly'), { recursive: true });
    writeFileSync(join(root, 'sub', 'nested', '.factorly', 'vault.enc'), 'other vault');
    symlinkSync(state, join(root, 'state-link'));
    symlinkSync(join(state, 'vault.enc'), join(root, 'vault-link'));
    const config = readFileSync(k.paths.mainFile, 'utf8');
    const refused = (path: string) =>
      `path ${JSON.stringify(path)} blocked by safety guard: it is one of factorly's own files (its state directory .factorly/ with the vault, keys and event log, or its config); the file tools never open them`;
    for (const path of [
      '.factorly/vault.enc',
      'sub/../.factorly/vault.enc',
      `${root}/.factorly/keys/log.key`,
      '.factorly/events.lmdb',
      '.factorly/factorly.yaml',
      'state-link/vault.enc',
      'vault-link',
      'sub/nested/.factorly/vault.enc',
    ]) {
      expect(await call('factorly.file.read', { path }), path).toMatchObject({ status: 'error', error: refused(path) });
    }
    for (const path of ['.factorly/factorly.yaml', '.factorly/tools/evil.yaml', 'state-link/new.yaml', 'vault-link']) {
      expect(await call('factorly.file.write', { path, content: 'tools: {}\n' }), path).toMatchObject({
        status: 'error',
        error: refused(path),
      });
    }
    expect(readFileSync(k.paths.mainFile, 'utf8')).toBe(config);
    expect(readFileSync(join(state, 'vault.enc'), 'utf8')).toBe('ciphertext');
    expect(existsSync(join(state, 'tools', 'evil.yaml'))).toBe(false);
    expect(existsSync(join(state, 'new.yaml'))).toBe(false);
  });

  it('refuses a config entry for a built-in that does not exist', async () => {
    await expect(
      startTestKernel('tools:\n  factorly.nope: {type: builtin, timeout: 5s}\n', [builtinsPlugin]),
    ).rejects.toThrow(
      'config: tool "factorly.nope" adjusts a built-in tool, but no built-in tool has that name (.factorly/factorly.yaml:2; built-in tools: factorly.fetch, factorly.shell, factorly.file.read, factorly.file.write, factorly.help, factorly.ask)',
    );
  });
});

describe('disabling built-ins', () => {
  it('serves none with disable_builtins and skips the listed ones with disabled_builtins', async () => {
    const none = await start('disable_builtins: true\ntools: {}\n');
    expect(none.registry.all().map((t) => t.name)).toEqual([]);
    await none.stop();
    kernel = undefined;
    const some = await start('disabled_builtins: [factorly.shell, factorly.file.write, factorly.ask]\ntools: {}\n');
    expect(some.registry.all().map((t) => t.name)).toEqual(['factorly.fetch', 'factorly.file.read', 'factorly.help']);
  });
});
