import { mkdirSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { describe, expect, it } from 'vitest';
import { BIN, runCli, tempProject } from '../helpers/project.js';

const CLAUDE = `{
  "mcpServers": {
    "github": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-github"],
      "env": {"GITHUB_TOKEN": "\${GITHUB_TOKEN}"}
    }
  },
  "note": "kept"
}
`;

const CURSOR = `{
  // Cursor accepts comments: they must survive
  "mcpServers": {
    "browser": { "command": "npx", "args": ["-y", "browser-mcp"] }
  }
}
`;

const CODEX = `# Codex settings
model = "o3" # the default model

[mcp_servers.docs] # hosted docs
url = "https://docs.example/mcp"

# local git server
[mcp_servers.git]
command = "uvx"
args = ["mcp-server-git"]
`;

const CONFIG =
  'tools:\n  greet:\n    type: cli\n    command: echo\n    args: ["hi {{name}}"]\n    parameters: [{name: name, default: you}]\n';

/** A project with sample configs for the three agents; Codex's home is inside it (CODEX_HOME). */
function project(
  files: Record<string, string> = { '.mcp.json': CLAUDE, '.cursor/mcp.json': CURSOR, 'codex/config.toml': CODEX },
) {
  const root = realpathSync(tempProject({ '.factorly/factorly.yaml': CONFIG, ...files }));
  const env = { CODEX_HOME: join(root, 'codex'), HOME: root };
  const sync = (...args: string[]) => runCli(['sync', ...args], root, { env });
  const read = (path: string) => readFileSync(join(root, path), 'utf8');
  return { root, sync, read };
}

const launcher = (root: string) => ({
  command: process.execPath,
  args: [realpathSync(BIN), 'serve', '--config', join(root, '.factorly', 'factorly.yaml')],
});
const backups = (dir: string) => readdirSync(dir).filter((name) => name.includes('.bak-'));

describe('factorly sync', () => {
  it('--dry-run shows a unified diff for each of the three agents and writes nothing', () => {
    const { root, sync, read } = project();
    const run = sync('--dry-run');
    expect(run).toMatchObject({ status: 0, stderr: '' });
    expect(run.stdout).toContain('--- .mcp.json\n+++ .mcp.json\n@@ -4,6 +4,15 @@\n');
    expect(run.stdout).toContain(`+    "factorly": {\n+      "command": ${JSON.stringify(process.execPath)},\n`);
    expect(run.stdout).toContain(
      '--- .cursor/mcp.json\n+++ .cursor/mcp.json\n@@ -1,6 +1,15 @@\n {\n   // Cursor accepts comments: they must survive\n   "mcpServers": {\n-    "browser": { "command": "npx", "args": ["-y", "browser-mcp"] }\n+    "browser": { "command": "npx", "args": ["-y", "browser-mcp"] },\n+    "factorly": {\n',
    );
    expect(run.stdout).toContain(
      `--- codex/config.toml\n+++ codex/config.toml\n@@ -8,3 +8,7 @@\n [mcp_servers.git]\n command = "uvx"\n args = ["mcp-server-git"]\n+\n+[mcp_servers.factorly]\n+command = ${JSON.stringify(process.execPath)}\n`,
    );
    expect(run.stdout.split('\n').filter((line) => /^\w+: /.test(line))).toEqual([
      'claude: would update .mcp.json (dry run: nothing written)',
      'cursor: would update .cursor/mcp.json (dry run: nothing written)',
      'codex: would update codex/config.toml (dry run: nothing written)',
    ]);
    expect([read('.mcp.json'), read('.cursor/mcp.json'), read('codex/config.toml')]).toEqual([CLAUDE, CURSOR, CODEX]);
    expect([...backups(root), ...backups(join(root, 'codex'))]).toEqual([]);
  });

  it('writes each entry with a backup, keeps every other server, key and comment, then is idempotent', () => {
    const { root, sync, read } = project();
    const first = sync();
    expect(first.status).toBe(0);
    expect(first.stdout).toMatch(/^claude: updated \.mcp\.json \(backup: \.mcp\.json\.bak-\d{8}T\d{9}Z\)$/m);
    expect(first.stdout).toMatch(
      /^codex: updated codex\/config\.toml \(backup: codex\/config\.toml\.bak-\d{8}T\d{9}Z\)$/m,
    );

    const claude = JSON.parse(read('.mcp.json'));
    expect(Object.keys(claude.mcpServers)).toEqual(['github', 'factorly']);
    expect(claude).toMatchObject({
      note: 'kept',
      mcpServers: { github: JSON.parse(CLAUDE).mcpServers.github, factorly: launcher(root) },
    });
    expect(read('.mcp.json').startsWith(CLAUDE.slice(0, CLAUDE.indexOf('    }\n  },')))).toBe(true);
    expect(read('.cursor/mcp.json')).toContain('// Cursor accepts comments: they must survive');
    expect(read('codex/config.toml')).toBe(
      `${CODEX}\n[mcp_servers.factorly]\ncommand = ${JSON.stringify(process.execPath)}\nargs = [ ${launcher(root)
        .args.map((arg) => JSON.stringify(arg))
        .join(', ')} ]\n`,
    );
    expect(readFileSync(join(root, backups(root)[0]), 'utf8')).toBe(CLAUDE);
    expect(readFileSync(join(root, 'codex', backups(join(root, 'codex'))[0]), 'utf8')).toBe(CODEX);
    expect(statSync(join(root, 'codex', 'config.toml')).mode & 0o777).toBe(
      statSync(join(root, 'codex', backups(join(root, 'codex'))[0])).mode & 0o777,
    );

    const written = ['.mcp.json', '.cursor/mcp.json', 'codex/config.toml'].map((path) => [
      read(path),
      statSync(join(root, path)).mtimeMs,
    ]);
    const second = sync();
    expect(second).toMatchObject({ status: 0, stderr: '' });
    expect(second.stdout).toBe(
      'claude: .mcp.json already up to date\ncursor: .cursor/mcp.json already up to date\ncodex: codex/config.toml already up to date\n',
    );
    expect(
      ['.mcp.json', '.cursor/mcp.json', 'codex/config.toml'].map((path) => [
        read(path),
        statSync(join(root, path)).mtimeMs,
      ]),
    ).toEqual(written);
    expect(backups(root)).toHaveLength(1);
  });

  it('creates the file for an agent named with --target, and syncs only the detected agents without it', () => {
    const { root, sync, read } = project({ '.claude/settings.json': '{}' });
    const created = sync('--target', 'cursor', '--json');
    expect(created.status).toBe(0);
    const report = JSON.parse(created.stdout);
    expect(report).toMatchObject({ dryRun: false, server: 'factorly', entry: launcher(root) });
    expect(report.results).toEqual([
      {
        target: 'cursor',
        file: '.cursor/mcp.json',
        path: join(root, '.cursor', 'mcp.json'),
        status: 'created',
        diff: expect.stringMatching(/^--- \/dev\/null\n\+\+\+ \.cursor\/mcp\.json\n/),
        written: true,
      },
    ]);
    expect(JSON.parse(read('.cursor/mcp.json'))).toEqual({ mcpServers: { factorly: launcher(root) } });

    // --command launches factorly from PATH (for a .mcp.json shared through git); --dry-run in JSON too.
    const portable = JSON.parse(sync('--target', 'claude', '--command', 'factorly', '--dry-run', '--json').stdout);
    expect(portable).toMatchObject({
      dryRun: true,
      entry: { command: 'factorly', args: ['serve', '--config', join(root, '.factorly', 'factorly.yaml')] },
    });
    expect(portable.results).toMatchObject([{ target: 'claude', status: 'created', written: false }]);

    // .claude/ and .cursor/ exist, the Codex home does not: those two are synced.
    const detected = JSON.parse(sync('--json').stdout).results.map((result: { target: string; status: string }) => [
      result.target,
      result.status,
    ]);
    expect(detected).toEqual([
      ['claude', 'created'],
      ['cursor', 'unchanged'],
    ]);
  });

  it('updates an older factorly entry in place, keeping the keys the user added, and says when it served another project', () => {
    const { sync, read } = project({
      'codex/config.toml':
        '[mcp_servers.factorly]\ncommand = "factorly"\nargs = ["serve", "--config", "/elsewhere/.factorly/factorly.yaml"]\nenv_vars = ["FACTORLY_VAULT_PASSWORD"]\n\n[mcp_servers.factorly.env]\nLOG = "1"\n',
    });
    const run = sync('--target', 'codex');
    expect(run.status).toBe(0);
    expect(run.stderr).toMatch(
      /^warning: codex: "factorly" served \/elsewhere\/\.factorly\/factorly\.yaml; it now serves \S+\/\.factorly\/factorly\.yaml \(use --name to keep both\)\n$/,
    );
    expect(run.stdout).toContain(
      '@@ -1,7 +1,7 @@\n [mcp_servers.factorly]\n-command = "factorly"\n-args = ["serve", "--config", "/elsewhere/.factorly/factorly.yaml"]\n',
    );
    expect(read('codex/config.toml')).toMatch(
      /^\[mcp_servers\.factorly\]\ncommand = ".+"\nargs = \[ .+ \]\nenv_vars = \[ "FACTORLY_VAULT_PASSWORD" \]\n\n\[mcp_servers\.factorly\.env\]\nLOG = "1"\n$/,
    );
  });

  it('refuses a malformed file with its name, line and column, and changes no file at all', () => {
    const broken = '{\n  "mcpServers": {\n    "github": {"command": "npx",}\n  }\n}\n';
    const { root, sync, read } = project({
      '.mcp.json': broken,
      '.cursor/mcp.json': CURSOR,
      'codex/config.toml': CODEX,
    });
    expect(sync()).toMatchObject({
      status: 1,
      stdout: '',
      stderr:
        'Error: .mcp.json:3:33: invalid JSON: property name expected; fix it (factorly left the file untouched)\n',
    });
    expect([read('.mcp.json'), read('.cursor/mcp.json'), read('codex/config.toml')]).toEqual([broken, CURSOR, CODEX]);

    const { sync: syncToml, read: readToml } = project({ 'codex/config.toml': '[mcp_servers.git]\ncommand = "uvx\n' });
    expect(syncToml('--target', 'codex')).toMatchObject({
      status: 1,
      stderr: expect.stringMatching(
        /^Error: codex\/config\.toml:2:\d+: invalid TOML: .+; fix it \(factorly left the file untouched\)\n$/,
      ),
    });
    expect(readToml('codex/config.toml')).toBe('[mcp_servers.git]\ncommand = "uvx\n');
    expect(backups(root)).toEqual([]);
  });

  it('explains what to do when no agent is found, the project has no config, or --name is unusable', () => {
    const { root, sync } = project({});
    expect(sync()).toMatchObject({
      status: 2,
      stderr: `Error: no agent config found (looked for .mcp.json, .claude/, .cursor/ and codex); choose one with --target claude|cursor|codex\n`,
    });
    expect(sync('--name', 'fac torly')).toMatchObject({
      status: 2,
      stderr: 'Error: --name "fac torly" may only use letters, digits, "_" and "-"\n',
    });
    const bare = tempProject();
    mkdirSync(join(bare, 'sub'));
    expect(runCli(['sync', '--target', 'claude'], bare, { env: { CODEX_HOME: join(root, 'codex') } })).toMatchObject({
      status: 1,
      stderr: "Error: config file not found: .factorly/factorly.yaml (run 'factorly init' to create one)\n",
    });
  });

  it('writes an entry that really launches factorly serve for this project, from any working directory', async () => {
    const { root, sync, read } = project({});
    expect(sync('--target', 'claude').status).toBe(0);
    const entry = JSON.parse(read('.mcp.json')).mcpServers.factorly as { command: string; args: string[] };
    const elsewhere = tempProject();
    const transport = new StdioClientTransport({
      ...entry,
      cwd: elsewhere,
      env: { PATH: process.env.PATH ?? '', HOME: elsewhere, XDG_CONFIG_HOME: join(elsewhere, 'xdg') },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'sync-test', version: '1' });
    await client.connect(transport);
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('greet');
      expect(await client.callTool({ name: 'greet', arguments: { name: 'Ada' } })).toMatchObject({
        content: [{ type: 'text', text: 'hi Ada\n' }],
      });
    } finally {
      await client.close();
    }
    expect(readdirSync(join(root, '.factorly'))).toContain('events.lmdb');
  });
});
