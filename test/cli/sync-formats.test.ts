import { mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync, lstatSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mergeEntry } from '../../src/cli/sync/entry.js';
import { updateJsonConfig } from '../../src/cli/sync/json-config.js';
import { updateTomlConfig } from '../../src/cli/sync/toml-config.js';
import { writeWithBackup } from '../../src/cli/sync/write-file.js';
import { tempProject } from '../helpers/project.js';

const ENTRY = {
  command: '/opt/node',
  args: ['/opt/factorly/bin/run.js', 'serve', '--config', '/p/.factorly/factorly.yaml'],
};
const json = (text: string | undefined, comments = false) =>
  updateJsonConfig(text, 'factorly', ENTRY, { file: '.mcp.json', comments });

describe('mergeEntry', () => {
  it('sets command and args in place and keeps every other key', () => {
    const merged = mergeEntry({ env: { A: '1' }, command: 'old', startup_timeout_sec: 20, args: [] }, ENTRY);
    expect(Object.keys(merged)).toEqual(['env', 'command', 'startup_timeout_sec', 'args']);
    expect(merged).toMatchObject({ env: { A: '1' }, command: '/opt/node', args: ENTRY.args, startup_timeout_sec: 20 });
  });

  it('replaces an entry that reached factorly over HTTP (its url and headers mean nothing for stdio)', () => {
    expect(mergeEntry({ url: 'http://127.0.0.1:3000/mcp', headers: { Authorization: 'Bearer x' } }, ENTRY)).toEqual(
      ENTRY,
    );
  });
});

describe('updateJsonConfig', () => {
  it('keeps 4-space indentation, key order and the other servers byte for byte', () => {
    const gh = '        "gh": {\n            "command": "npx",\n            "args": ["-y", "gh"]\n        }';
    const before = `{\n    "z": 1,\n    "mcpServers": {\n${gh}\n    },\n    "a": 2\n}\n`;
    const { text } = json(before);
    expect(
      text.startsWith(
        `{\n    "z": 1,\n    "mcpServers": {\n${gh},\n        "factorly": {\n            "command": "/opt/node",\n`,
      ),
    ).toBe(true);
    expect(text.endsWith('        }\n    },\n    "a": 2\n}\n')).toBe(true);
    expect(JSON.parse(text).mcpServers.factorly).toEqual(ENTRY);
  });

  it('returns the same text when the entry is already there', () => {
    const once = json(undefined).text;
    expect(json(once).text).toBe(once);
  });

  it('names the file, line and column of a syntax error', () => {
    expect(() => json('{\n  "mcpServers": {\n    "gh" {}\n  }\n}\n')).toThrow(
      '.mcp.json:3:10: invalid JSON: colon expected; fix it (factorly left the file untouched)',
    );
    expect(() => json('{\n  // mine\n  "mcpServers": {}\n}\n')).toThrow(
      '.mcp.json:2:3: comments are not allowed in this file; fix it (factorly left the file untouched)',
    );
    expect(() => json('[]')).toThrow(
      '.mcp.json: its top level is not a JSON object; fix it (factorly left the file untouched)',
    );
    expect(() => json('{"mcpServers": []}')).toThrow(
      '.mcp.json: "mcpServers" is not an object; fix it (factorly left the file untouched)',
    );
  });

  it('keeps comments, trailing commas and one-line siblings where the agent accepts them (Cursor)', () => {
    const before = '{\n  // my servers\n  "mcpServers": {\n    "gh": {"command": "npx"}, // GitHub\n  },\n}\n';
    const { text } = json(before, true);
    expect(text).toBe(
      '{\n  // my servers\n  "mcpServers": {\n    "gh": {"command": "npx"}, // GitHub\n    "factorly": {\n      "command": "/opt/node",\n      "args": [\n' +
        '        "/opt/factorly/bin/run.js",\n        "serve",\n        "--config",\n        "/p/.factorly/factorly.yaml"\n      ]\n    },\n  },\n}\n',
    );
  });

  it('replaces an existing entry in place and keeps CRLF line endings', () => {
    const before =
      '{\r\n  "mcpServers": {\r\n    "factorly": {"command": "old", "env": {"A": "1"}},\r\n    "gh": {"command": "npx"}\r\n  }\r\n}\r\n';
    const { text, previous } = json(before);
    expect(previous).toEqual({ command: 'old', env: { A: '1' } });
    expect(text.split('\r\n').slice(0, 4)).toEqual([
      '{',
      '  "mcpServers": {',
      '    "factorly": {',
      '      "command": "/opt/node",',
    ]);
    expect(text).toContain('"env": {\r\n        "A": "1"\r\n      },\r\n      "args": [\r\n');
    expect(text.endsWith('      ]\r\n    },\r\n    "gh": {"command": "npx"}\r\n  }\r\n}\r\n')).toBe(true);
    expect(text.replaceAll('\r\n', '')).not.toContain('\n');
  });

  it('adds mcpServers to a file that has none, after the other keys', () => {
    expect(JSON.parse(json('{\n  "theme": "dark"\n}\n').text)).toEqual({
      theme: 'dark',
      mcpServers: { factorly: ENTRY },
    });
  });
});

describe('updateTomlConfig', () => {
  const toml = (text: string | undefined) => updateTomlConfig(text, 'factorly', ENTRY, 'config.toml');

  it('replaces the old entry where it was, keeping its extra keys and every comment outside it', () => {
    const before = [
      '# top',
      'model = "o3"',
      '',
      '[mcp_servers."factorly"]',
      '# old comment inside the entry',
      'command = "factorly"',
      'args = [',
      '  "serve",',
      ']',
      'startup_timeout_sec = 30',
      '',
      '[mcp_servers.factorly.env]',
      'LOG = "1"',
      '',
      '# about gh',
      '[mcp_servers.gh] # trailing',
      'command = "npx"',
      '',
    ].join('\n');
    const { text, previous } = toml(before);
    expect(previous).toMatchObject({ command: 'factorly', args: ['serve'] });
    expect(text).toBe(
      [
        '# top',
        'model = "o3"',
        '',
        '[mcp_servers.factorly]',
        'command = "/opt/node"',
        'args = [ "/opt/factorly/bin/run.js", "serve", "--config", "/p/.factorly/factorly.yaml" ]',
        'startup_timeout_sec = 30',
        '',
        '[mcp_servers.factorly.env]',
        'LOG = "1"',
        '',
        '# about gh',
        '[mcp_servers.gh] # trailing',
        'command = "npx"',
        '',
      ].join('\n'),
    );
    expect(toml(text).text).toBe(text);
  });

  it('creates the file, and appends to one without the entry', () => {
    expect(toml(undefined).text).toBe(
      '[mcp_servers.factorly]\ncommand = "/opt/node"\nargs = [ "/opt/factorly/bin/run.js", "serve", "--config", "/p/.factorly/factorly.yaml" ]\n',
    );
    expect(toml('model = "o3"').text).toMatch(/^model = "o3"\n\n\[mcp_servers\.factorly\]\n/);
  });

  it('refuses an entry written inline, rather than rewriting the file without its comments', () => {
    const inline = '# keep me\n[mcp_servers]\nfactorly = { command = "x" }\n';
    expect(() => toml(inline)).toThrow(
      'config.toml: [mcp_servers.factorly] is written inline or as dotted keys, which factorly cannot update without rewriting the file; give it its own [mcp_servers.factorly] table (factorly left the file untouched)',
    );
  });

  it('names the line and column of a syntax error', () => {
    expect(() => toml('model = "o3"\n[mcp_servers.gh\ncommand = "npx"\n')).toThrow(
      /^config\.toml:2:\d+: invalid TOML: .+; fix it \(factorly left the file untouched\)$/,
    );
    expect(() => toml('mcp_servers = 3\n')).toThrow(
      'config.toml: "mcp_servers" is not a table (factorly left the file untouched)',
    );
  });
});

describe('writeWithBackup', () => {
  it('backs up the old contents, keeps the mode, writes through a symlink and leaves no temp file', () => {
    const root = tempProject();
    mkdirSync(join(root, 'dotfiles'));
    writeFileSync(join(root, 'dotfiles', 'config.toml'), 'old\n', { mode: 0o600 });
    symlinkSync(join(root, 'dotfiles', 'config.toml'), join(root, 'config.toml'));
    const backup = writeWithBackup(join(root, 'config.toml'), 'new\n', 0o644);
    expect(backup).toMatch(/dotfiles\/config\.toml\.bak-\d{8}T\d{9}Z$/);
    expect(readFileSync(backup!, 'utf8')).toBe('old\n');
    expect(lstatSync(join(root, 'config.toml')).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(root, 'dotfiles', 'config.toml'), 'utf8')).toBe('new\n');
    expect(statSync(join(root, 'dotfiles', 'config.toml')).mode & 0o777).toBe(0o600);
    expect(readdirSync(join(root, 'dotfiles')).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('creates a missing file and its directory with the mode asked for, without a backup', () => {
    const root = tempProject();
    expect(writeWithBackup(join(root, 'codex', 'config.toml'), 'x\n', 0o600)).toBeUndefined();
    expect(statSync(join(root, 'codex', 'config.toml')).mode & 0o777).toBe(0o600);
  });
});
