import { existsSync, mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readLaunchCache, writeLaunchCache, launchCacheDir } from '../../src/cli/launch-cache.js';
import { pluginsForCall, type BootPlan } from '../../src/kernel/boot-plan.js';
import { ConfigCache } from '../../src/config/config-cache.js';
import { loadConfig } from '../../src/config/load.js';
import { findConfig } from '../../src/config/paths.js';
import type { ToolDefinition, ToolProvider } from '../../src/contracts/tool.js';
import type { PluginSource } from '../../src/plugins/manifest.js';
import { KeyedRegistry } from '../../src/kernel/registries.js';
import { tempProject } from '../helpers/project.js';
import { toolDefinition } from '../helpers/tool-definition.js';

const source = (name: string, root = `/plugins/${name}`): PluginSource => ({
  name,
  version: '1.0.0',
  root,
  kind: 'core',
  manifest: { plugin: './p.js', apiVersion: '1' },
});
const SOURCES = ['provider-cli', 'provider-mcp', 'shadow', 'output', 'vault', 'interface-ui', 'builtins'].map((name) =>
  source(name),
);
const PLAN: BootPlan = {
  schema: 1,
  key: 'k',
  plugins: [
    { id: 'provider-cli', root: '/plugins/provider-cli', owns: ['provider:cli'] },
    { id: 'provider-mcp', root: '/plugins/provider-mcp', owns: ['provider:mcp', 'passthroughs'] },
    { id: 'shadow', root: '/plugins/shadow', owns: ['rules', 'channels'] },
    { id: 'output', root: '/plugins/output', owns: ['processors'] },
    { id: 'vault', root: '/plugins/vault', owns: ['backends', 'processors', 'listeners'] },
    { id: 'interface-ui', root: '/plugins/interface-ui', owns: ['channels', 'interfaces'] },
    { id: 'builtins', root: '/plugins/builtins', owns: ['provider:builtin', 'sources'] },
  ],
  report: { loaded: [], failed: [] },
};
const tool = (over: Partial<ToolDefinition> = {}): ToolDefinition =>
  toolDefinition({ spec: { command: 'echo', args: ['{{text}}'] }, source: { file: 'f', line: 1 }, ...over });
const names = (chosen: PluginSource[] | undefined) => chosen?.map((s) => s.name);

describe('the plugins a call needs', () => {
  it('a cli tool: its provider, the rules and the processors, not the vault, the interfaces or other providers', () => {
    expect(names(pluginsForCall(PLAN, SOURCES, tool(), 0))).toEqual(['provider-cli', 'shadow', 'output']);
  });

  it('the secret plugins when the tool refers to a secret or takes references, the channels when it asks for confirmation', () => {
    expect(
      names(pluginsForCall(PLAN, SOURCES, tool({ spec: { command: 'curl', args: ['-H', 'x: {{vault:TOKEN}}'] } }), 0)),
    ).toContain('vault');
    expect(
      names(
        pluginsForCall(
          PLAN,
          SOURCES,
          tool({
            parameters: [
              { name: 'q', type: 'string', required: false, hydrateVaultRefs: ['vault:K'] },
            ] as ToolDefinition['parameters'],
          }),
          0,
        ),
      ),
    ).toContain('vault');
    expect(
      names(pluginsForCall(PLAN, SOURCES, tool({ shadow: { confirm: true } as ToolDefinition['shadow'] }), 0)),
    ).toEqual(['provider-cli', 'shadow', 'output', 'interface-ui']);
    // Person channels (the ask-a-person contract) load for a confirmation as confirm channels do.
    const people = {
      ...PLAN,
      plugins: PLAN.plugins.map((p) => ({ ...p, owns: p.owns.map((o) => (o === 'channels' ? 'personChannels' : o)) })),
    };
    expect(
      names(pluginsForCall(people, SOURCES, tool({ shadow: { confirm: true } as ToolDefinition['shadow'] }), 0)),
    ).toEqual(['provider-cli', 'shadow', 'output', 'interface-ui']);
  });

  it('everything when the plan cannot tell: a provider that also serves more, an unknown plugin, no such config entry, overlays', () => {
    expect(pluginsForCall(PLAN, SOURCES, tool({ type: 'mcp' }), 0)).toBeUndefined();
    expect(pluginsForCall(PLAN, [...SOURCES, source('new-plugin')], tool(), 0)).toBeUndefined();
    expect(pluginsForCall(PLAN, SOURCES, undefined, 0)).toBeUndefined();
    expect(pluginsForCall(PLAN, SOURCES, tool(), 1)).toBeUndefined();
  });
});

describe('the normalised config cache', () => {
  const providers = new KeyedRegistry<ToolProvider>('tool type');
  providers.add(
    'cli',
    {
      type: 'cli',
      keys: ['command', 'args'],
      execute: async () => ({ output: '', exitCode: 0 }),
    } as unknown as ToolProvider,
    'test',
  );
  const setup = () => {
    const root = tempProject({ '.factorly/factorly.yaml': 'tools:\n  a: {type: cli, command: echo}\n' });
    const paths = findConfig({ cwd: root });
    const cache = new ConfigCache(join(root, 'cache'), [source('provider-cli')]);
    cache.write(paths, loadConfig(paths, providers));
    return { root, paths, cache };
  };

  it('gives back the config while its files are the same, and nothing once a file changes, appears or the plugins differ', () => {
    const { root, paths, cache } = setup();
    expect(cache.read(paths)?.tools.map((t) => t.name)).toEqual(['a']);
    writeFileSync(join(root, '.factorly', 'factorly.yaml'), 'tools:\n  b: {type: cli, command: echo}\n');
    expect(cache.read(paths)).toBeUndefined();
    cache.write(paths, loadConfig(paths, providers));
    expect(cache.read(paths)?.tools.map((t) => t.name)).toEqual(['b']);
    mkdirSync(join(root, '.factorly', 'tools'), { recursive: true });
    writeFileSync(join(root, '.factorly', 'tools', 'more.yaml'), 'c: {type: cli, command: echo}\n');
    expect(cache.read(paths)).toBeUndefined();
    expect(new ConfigCache(join(root, 'cache'), [source('provider-cli'), source('other')]).read(paths)).toBeUndefined();
  });

  it('keeps the entries of the 64 projects used last, and removes the ones version 1 named by a digest alone', () => {
    const dir = join(tempProject(), 'cache');
    const legacy = join(dir, 'config', `${'ab'.repeat(16)}.v8`);
    mkdirSync(join(dir, 'config'), { recursive: true });
    writeFileSync(legacy, 'old entry');
    const cache = new ConfigCache(dir, [source('provider-cli')]);
    const seen = new Set<string>();
    const projects = Array.from({ length: 66 }, (_, i) => {
      const root = tempProject({ '.factorly/factorly.yaml': `tools:\n  t${i}: {type: cli, command: echo}\n` });
      const paths = findConfig({ cwd: root });
      cache.write(paths, loadConfig(paths, providers));
      // Each written a second after the one before (file times can tie within a few ms).
      const made = readdirSync(join(dir, 'config')).map((file) => join(dir, 'config', file));
      const newest = made.find((file) => !seen.has(file));
      if (newest) {
        seen.add(newest);
        utimesSync(newest, 1_000_000 + i, 1_000_000 + i);
      }
      return paths;
    });
    expect(existsSync(legacy)).toBe(false);
    expect(readdirSync(join(dir, 'config'))).toHaveLength(64);
    expect(cache.read(projects[65]!)?.tools.map((t) => t.name)).toEqual(['t65']);
    expect(cache.read(projects[2]!)?.tools.map((t) => t.name)).toEqual(['t2']);
    expect(cache.read(projects[0]!)).toBeUndefined();
    expect(cache.read(projects[1]!)).toBeUndefined();
  });

  it('follows the files entries name for a key (code_file) as it follows config files', () => {
    const scripts = new KeyedRegistry<ToolProvider>('tool type');
    const code = { type: 'code', keys: ['code', 'code_file'], fileKeys: { code_file: 'code' } };
    scripts.add('code', code as unknown as ToolProvider, 'test');
    const root = tempProject({
      'factorly.yaml': 'tools:\n  s: {type: code, code_file: s.js}\n',
      's.js': 'one',
    });
    const paths = findConfig({ cwd: root });
    const cache = new ConfigCache(join(root, 'cache'), [source('provider-code')]);
    cache.write(paths, loadConfig(paths, scripts));
    expect(cache.read(paths)?.tools[0].spec.code).toBe('one');
    writeFileSync(join(root, 's.js'), 'two');
    expect(cache.read(paths)).toBeUndefined();
    const reloaded = loadConfig(paths, scripts);
    expect(reloaded.tools[0].spec.code).toBe('two');
    expect(reloaded.included).toEqual([join(root, 's.js')]);
  });
});

describe('the launch cache', () => {
  let saved: NodeJS.ProcessEnv;
  beforeEach(() => {
    saved = { ...process.env };
  });
  afterEach(() => {
    process.env = saved;
  });

  it('gives back the plugin list oclif found until a plugin manifest or the environment changes', () => {
    const root = tempProject({
      'pkg/package.json': '{"name":"factorly"}',
      'data/package.json': '{}',
      'plug/package.json': '{"name":"p"}',
    });
    process.env.XDG_CACHE_HOME = join(root, 'cache');
    delete process.env.FACTORLY_CACHE_DIR;
    const sources = [source('p', join(root, 'plug'))];
    writeLaunchCache(sources, launchCacheDir(), join(root, 'data'), join(root, 'pkg'));
    expect(readLaunchCache(join(root, 'pkg'))).toEqual(sources);
    writeFileSync(join(root, 'plug', 'package.json'), '{"name":"p","version":"2.0.0"}');
    expect(readLaunchCache(join(root, 'pkg'))).toBeUndefined();
    writeLaunchCache(sources, launchCacheDir(), join(root, 'data'), join(root, 'pkg'));
    expect(readLaunchCache(join(root, 'pkg'))).toEqual(sources);
    // Another installation of factorly under the same home (a checkout beside a global install).
    expect(readLaunchCache(join(root, 'other-install'))).toBeUndefined();
    process.env.XDG_DATA_HOME = join(root, 'elsewhere');
    expect(readLaunchCache(join(root, 'pkg'))).toBeUndefined();
  });

  it('takes a cache it cannot write or cannot read for a miss, never a failure', () => {
    const root = tempProject({ 'pkg/package.json': '{"name":"factorly"}', 'data/package.json': '{}' });
    // The cache dir's place holds a file: nothing can be written under it.
    writeFileSync(join(root, 'cache'), 'not a directory');
    process.env.XDG_CACHE_HOME = join(root, 'cache');
    delete process.env.FACTORLY_CACHE_DIR;
    expect(() =>
      writeLaunchCache([source('p')], launchCacheDir(), join(root, 'data'), join(root, 'pkg')),
    ).not.toThrow();
    expect(readLaunchCache(join(root, 'pkg'))).toBeUndefined();
    // A file of the kind that is not JSON (cut short by a full disk) is a miss too.
    process.env.XDG_CACHE_HOME = join(root, 'cache2');
    writeLaunchCache([source('p')], launchCacheDir(), join(root, 'data'), join(root, 'pkg'));
    const [file] = readdirSync(launchCacheDir()).filter((name) => name.startsWith('launch-'));
    writeFileSync(join(launchCacheDir(), file!), '{"schema": 2, "root":');
    expect(readLaunchCache(join(root, 'pkg'))).toBeUndefined();
  });

  it('keeps the lists of installations used in turn side by side, the newest eight of them', () => {
    const root = tempProject({ 'data/package.json': '{}', 'plug/package.json': '{"name":"p"}' });
    process.env.XDG_CACHE_HOME = join(root, 'cache');
    delete process.env.FACTORLY_CACHE_DIR;
    // The one list an earlier version kept, for whichever installation started last.
    mkdirSync(launchCacheDir(), { recursive: true });
    writeFileSync(join(launchCacheDir(), 'launch.json'), '{"schema": 1}');
    const installs = Array.from({ length: 10 }, (_, i) => join(root, `install-${i}`));
    const listed = () => new Set(existsSync(launchCacheDir()) ? readdirSync(launchCacheDir()) : []);
    for (const [i, install] of installs.entries()) {
      mkdirSync(install);
      writeFileSync(join(install, 'package.json'), `{"name":"factorly","version":"1.0.${i}"}`);
      const before = listed();
      writeLaunchCache([source(`p${i}`, join(root, 'plug'))], launchCacheDir(), join(root, 'data'), install);
      // Each written a second after the one before (file times can tie within a few ms).
      const made = [...listed()].find((file) => !before.has(file))!;
      utimesSync(join(launchCacheDir(), made), 1_000_000 + i, 1_000_000 + i);
    }
    // Two used in turn: neither evicts the other (one file for both made each start a full one).
    expect(readLaunchCache(installs[9]!)?.map((s) => s.name)).toEqual(['p9']);
    expect(readLaunchCache(installs[8]!)?.map((s) => s.name)).toEqual(['p8']);
    expect(readLaunchCache(installs[9]!)?.map((s) => s.name)).toEqual(['p9']);
    expect(readdirSync(launchCacheDir()).filter((file) => file.startsWith('launch'))).toHaveLength(8);
    expect(readLaunchCache(installs[0]!)).toBeUndefined();
    expect(readLaunchCache(installs[2]!)?.map((s) => s.name)).toEqual(['p2']);
  });
});
