import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { leaksIn, leaksUnder } from '../helpers/leaks.js';
import { REPO, runCli, tempProject, type CliRun } from '../helpers/project.js';

/**
 * What factorly's own environment holds that no tool should see: a made-up FACTORLY_* variable, a
 * cloud credential, and factorly's two secret variables. Each process factorly starts for a tool (a
 * cli tool, factorly.shell, an output pipe, a stdio upstream) prints its environment; none of these
 * may reach it, nor the log, unless a tool lists the cloud credential in `env_passthrough`.
 */
function canaryEnvironment(): Record<string, string> {
  const value = (): string => `cnry-${randomBytes(12).toString('hex')}`;
  return {
    [`FACTORLY_CANARY_${randomBytes(4).toString('hex').toUpperCase()}`]: value(),
    AWS_SECRET_ACCESS_KEY: value(),
    FACTORLY_VAULT_PASSWORD: value(),
    FACTORLY_HTTP_TOKEN: value(),
  };
}

/** The documented base every tool process gets from factorly's environment (when set). */
const BASE = ['PATH', 'HOME', 'LANG', 'TZ', 'TMPDIR', 'USER', 'LOGNAME', 'SHELL', 'TERM'];
/** What `sh` sets for itself. */
const SHELL_OWN = ['PWD', 'OLDPWD', 'SHLVL', '_'];
const ENV_SERVER = join(REPO, 'test', 'fixtures', 'env-server.mjs');

/**
 * One tool of each kind that prints its environment, by name, each with `env: {OWN_SETTING: …}`;
 * `extra` is a YAML line added to the entry (or, for the pipe, to its `pipe:`).
 */
function printer(name: string, extra = ''): string {
  const own = '    env: {OWN_SETTING: "from-config"}\n';
  const inPipe = (text: string): string => text.replace(/^ {4}/gm, '        ');
  const entries: Record<string, string> = {
    printenv: `type: cli\n    command: env\n${own}${extra}`,
    piped: `type: cli\n    command: echo\n    args: [ignored]\n    filter:\n      pipe:\n        command: env\n${inPipe(own + extra)}`,
    'factorly.shell': `shadow: {confirm: false}\n${own}${extra}`,
    up: `type: mcp\n    command: ${process.execPath}\n    args: [${JSON.stringify(ENV_SERVER)}]\n${own}${extra}`,
  };
  return `  ${name}:\n    ${entries[name]}\n`;
}

function printers(extra = ''): string {
  return `tools:\n${['printenv', 'piped', 'factorly.shell', 'up'].map((name) => printer(name, extra)).join('')}`;
}

const CALLS: Record<string, string[]> = {
  cli: ['call', 'printenv'],
  pipe: ['call', 'piped'],
  shell: ['call', 'factorly.shell', '--command', 'env'],
  upstream: ['call', 'up.env'],
};

function namesIn(run: CliRun): string[] {
  return run.stdout
    .split('\n')
    .map((line) => /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(line)?.[1])
    .filter((name): name is string => name !== undefined);
}

describe('a tool process gets the environment built for it, never factorly’s own', () => {
  it(
    'a cli tool, factorly.shell, an output pipe and a stdio upstream see only the base and their env; the canary is nowhere',
    { timeout: 180_000 },
    () => {
      const canary = canaryEnvironment();
      const root = tempProject({ '.factorly/factorly.yaml': printers() });
      const runs = Object.fromEntries(
        Object.entries(CALLS).map(([kind, args]) => [kind, runCli(args, root, { env: canary })]),
      );
      for (const [kind, run] of Object.entries(runs)) {
        expect(run.status, `${kind}: ${run.stderr}`).toBe(0);
        expect(namesIn(run), kind).toContain('PATH');
      }
      // Each gets its own env; beyond the base, nothing else (the shell sets a few of its own).
      for (const [kind, run] of Object.entries(runs)) {
        expect(run.stdout.split('\n'), kind).toContain('OWN_SETTING=from-config');
        const allowed = [...BASE, ...(kind === 'shell' ? SHELL_OWN : [])];
        expect(
          namesIn(run).filter((name) => !allowed.includes(name)),
          kind,
        ).toEqual(['OWN_SETTING']);
      }

      const logs = runCli(['logs', '--json'], root, { env: canary });
      expect(logs.status).toBe(0);
      for (const [name, value] of Object.entries(canary)) {
        for (const [kind, run] of Object.entries(runs))
          expect(leaksIn(run.stdout + run.stderr, value), `${name} in ${kind}`).toEqual([]);
        expect(leaksIn(logs.stdout, value), `${name} in logs --json`).toEqual([]);
        expect(leaksUnder(join(root, '.factorly'), value), `${name} under .factorly/`).toEqual([]);
      }
    },
  );

  it('env_passthrough hands a named variable to each kind of tool process', { timeout: 180_000 }, () => {
    const canary = canaryEnvironment();
    const root = tempProject({
      '.factorly/factorly.yaml': printers('    env_passthrough: [AWS_SECRET_ACCESS_KEY, NOT_SET_ANYWHERE]'),
    });
    for (const [kind, args] of Object.entries(CALLS)) {
      const run = runCli(args, root, { env: canary });
      expect(run.status, `${kind}: ${run.stderr}`).toBe(0);
      expect(run.stdout.split('\n'), kind).toContain(`AWS_SECRET_ACCESS_KEY=${canary.AWS_SECRET_ACCESS_KEY}`);
      expect(namesIn(run), kind).not.toContain('NOT_SET_ANYWHERE');
      for (const name of Object.keys(canary).filter((key) => key.startsWith('FACTORLY_')))
        expect(leaksIn(run.stdout, canary[name]), `${name} in ${kind}`).toEqual([]);
    }
  });

  it('env_isolation: inherit hands a cli tool the environment minus factorly’s own variables', () => {
    const canary = canaryEnvironment();
    const root = tempProject({
      '.factorly/factorly.yaml': 'tools:\n  inherits:\n    type: cli\n    command: env\n    env_isolation: inherit\n',
    });
    const run = runCli(['call', 'inherits'], root, { env: { ...canary, SOME_USER_SETTING: 'kept' } });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain('SOME_USER_SETTING=kept\n');
    expect(run.stdout).toContain(`AWS_SECRET_ACCESS_KEY=${canary.AWS_SECRET_ACCESS_KEY}\n`);
    for (const name of Object.keys(canary).filter((key) => key.startsWith('FACTORLY_')))
      expect(leaksIn(run.stdout, canary[name]), name).toEqual([]);
  });

  it('listing one of factorly’s own variables, or a malformed list, in env_passthrough is a config error naming the tool', () => {
    const bad = (tool: string, entry: string): string => `tools:\n${printer(tool, `    env_passthrough: ${entry}`)}`;
    const cases: [string, string, RegExp][] = [
      ['printenv', bad('printenv', '[FACTORLY_VAULT_PASSWORD]'), /"printenv".*FACTORLY_VAULT_PASSWORD/],
      ['up', bad('up', '[FACTORLY_HTTP_TOKEN]'), /"up".*FACTORLY_HTTP_TOKEN/],
      ['piped', bad('piped', '[FACTORLY_CANARY]'), /"piped".*FACTORLY_CANARY/],
      [
        'factorly.shell',
        bad('factorly.shell', '[FACTORLY_VAULT_PASSWORD]'),
        /"factorly\.shell".*FACTORLY_VAULT_PASSWORD/,
      ],
      ['printenv', bad('printenv', 'AWS_SECRET_ACCESS_KEY'), /"printenv".*env_passthrough.*list/],
      ['printenv', bad('printenv', '["BAD NAME"]'), /"printenv".*"BAD NAME"/],
    ];
    for (const [tool, yaml, message] of cases) {
      const run = runCli(['tools'], tempProject({ '.factorly/factorly.yaml': yaml }));
      expect(run.status, `${tool}: ${run.stdout}${run.stderr}`).not.toBe(0);
      expect(run.stdout + run.stderr, tool).toMatch(message);
    }
  });

  it('a witness command and a secret backend command keep the person’s environment minus factorly’s secret variables', () => {
    const canary = canaryEnvironment();
    const out = tempProject();
    const witnessFile = join(out, 'witness-env.txt');
    const backendFile = join(out, 'backend-env.txt');
    const yaml = `log:
  checkpoint_every: 1
  witness: ["sh", "-c", "env > ${witnessFile}"]
vault_backends:
  pm:
    get: {command: sh, args: ["-c", "env > ${backendFile}; echo from-the-manager"]}
tools:
  uses-backend:
    type: cli
    command: echo
    args: ["{{pm:item}}"]
`;
    const root = tempProject({ '.factorly/factorly.yaml': yaml });
    const run = runCli(['call', 'uses-backend'], root, { env: { ...canary, SOME_USER_SETTING: 'kept' } });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toBe('[REDACTED:item]\n');
    for (const [who, file] of [
      ['witness', witnessFile],
      ['backend', backendFile],
    ]) {
      const lines = readFileSync(file, 'utf8').split('\n');
      expect(lines, who).toContain('SOME_USER_SETTING=kept');
      expect(lines, who).toContain(`AWS_SECRET_ACCESS_KEY=${canary.AWS_SECRET_ACCESS_KEY}`);
      for (const name of Object.keys(canary).filter((key) => key.startsWith('FACTORLY_')))
        expect(leaksIn(lines.join('\n'), canary[name]), `${name} in ${who}`).toEqual([]);
    }
    expect(readFileSync(witnessFile, 'utf8')).toMatch(/^FACTORLY_CHECKPOINT_SIZE=\d+$/m);
  });
});
