import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { chromium, type Browser, type Page } from 'playwright-core';
import { BIN, outcomeOf, REPO, type CliRun } from '../../../test/helpers/project.js';
import { projectEvents } from '../../../test/helpers/events.js';
// The built app (its static files are found beside dist/, as `factorly ui` serves them).
import { createApp } from '../dist/src/app.js';
import { newSession } from '../dist/src/security.js';

export const SCREENSHOTS = join(REPO, 'artifacts', 'screenshots');

/** Debian's Chromium (installed by .ci/run); playwright-core drives it, it downloads no browser. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** A project that lives for a whole test file (the shared helper removes its dirs after each test). */
export function project(files: Record<string, string>): { root: string; remove: () => void } {
  const root = mkdtempSync(join(tmpdir(), 'factorly-ui-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return { root, remove: () => rmSync(root, { recursive: true, force: true }) };
}

function env(root: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    XDG_DATA_HOME: join(root, '.xdg-data'),
    XDG_CONFIG_HOME: join(root, '.xdg-config'),
    ...extra,
  };
}

/** How a CLI run ended (the tests' `CliRun`). */
export type CliResult = CliRun;

/** Runs the built CLI without blocking the test (stdin is a pipe: no terminal to answer on). */
export function cli(args: string[], root: string, extraEnv: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: root,
    env: env(root, extraEnv),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stdin.end();
  return outcomeOf(child);
}

/**
 * Starts the built CLI and leaves it running (stdin a pipe: no terminal), in a process group of its
 * own, so a test can end it the way a person's `kill` would: `process.kill(-child.pid, signal)`
 * reaches the guard and the command it runs. Its stderr is collected in `stderr()`.
 */
export function spawnCli(
  args: string[],
  root: string,
  extraEnv: NodeJS.ProcessEnv = {},
): ChildProcess & { stderr: NonNullable<ChildProcess['stderr']>; said: () => string } {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: root,
    env: env(root, extraEnv),
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
  let said = '';
  child.stderr.on('data', (chunk: Buffer) => (said += chunk.toString()));
  return Object.assign(child, { said: () => said });
}

export interface RunningUi {
  /** The address printed at start, with its token. */
  url: string;
  /** `http://127.0.0.1:<port>` */
  origin: string;
  token: string;
  stop: () => Promise<number | null>;
}

/** Starts `factorly ui --port 0 --no-open` (and any `args`) and waits for the address it prints. */
export function startUi(root: string, extraEnv: NodeJS.ProcessEnv = {}, args: string[] = []): Promise<RunningUi> {
  const child: ChildProcess = spawn(process.execPath, [BIN, 'ui', '--port', '0', '--no-open', ...args], {
    cwd: root,
    env: env(root, extraEnv),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    child.on('exit', (code) => reject(new Error(`factorly ui exited with ${code}: ${stderr}`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const match = /^factorly ui: (http:\/\/[^/]+)\/\?token=([0-9a-f]+)$/.exec(line);
      if (!match) return;
      resolve({
        url: `${match[1]}/?token=${match[2]}`,
        origin: match[1],
        token: match[2],
        stop: () => {
          child.kill('SIGINT');
          return exited;
        },
      });
    });
  });
}

export const events = projectEvents;

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
}

/** Tools the UI tests share, as entries of a `tools:` block. */
export const TOOLS = {
  say: `  say:
    type: cli
    command: echo
    args: ["{{text}}"]
`,
  forbidden: `  forbidden:
    type: cli
    command: echo
    args: ["never printed"]
    shadow: {deny: true}
`,
  /** A script calling `say` twice and the denied `forbidden`: a tree with a blocked inner call. */
  triage: `  triage:
    type: code
    description: Looks at an incident with three tools
    code: |
      async function run() {
        const first = await factorly.call("say", { text: "one" });
        const second = await factorly.call("say", { text: "two" });
        const third = await factorly.call("forbidden", {});
        return [first.output.trim(), second.output.trim(), third.isError() ? "blocked" : "ran"].join(" ");
      }
`,
} as const;

export interface OpenUi {
  ui: RunningUi;
  browser: Browser;
  /** A page at 1280×900 that has the session (it opened the printed address). */
  page: Page;
  /** MCP clients talking to `factorly serve` in the project, in the order asked for. */
  agents: Client[];
  /** Closes the agents and the browser, stops the UI (resolving to its exit code) and removes the project. */
  close: () => Promise<number | null>;
}

/** The UI of a project, a browser on it and MCP agents, started side by side: one of each per test file. */
export async function openUi(
  proj: { root: string; remove: () => void },
  { env: extraEnv = {}, agents = [] }: { env?: NodeJS.ProcessEnv; agents?: [name: string, version: string][] } = {},
): Promise<OpenUi> {
  const [ui, browser, clients] = await Promise.all([
    startUi(proj.root, extraEnv),
    launchChromium(),
    Promise.all(agents.map(([name, version]) => mcpAgent(proj.root, name, version))),
  ]);
  const page = await (await browser.newContext({ viewport: DESKTOP })).newPage();
  await page.goto(ui.url);
  const close = async (): Promise<number | null> => {
    for (const client of clients) await client.close();
    await browser.close();
    const code = await ui.stop();
    proj.remove();
    return code;
  };
  return { ui, browser, page, agents: clients, close };
}

/** The desktop size every UI test opens pages at; `shoot` adds a phone's. */
export const DESKTOP = { width: 1280, height: 900 };
export const PHONE = { width: 390, height: 844 };

/** The page, full length, at 1280×900 and at a phone's 390×844, saved as test artifacts (never committed). */
export async function shoot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const size = page.viewportSize() ?? DESKTOP;
  await page.setViewportSize(DESKTOP);
  await page.screenshot({ path: join(SCREENSHOTS, `${name}-1280.png`), fullPage: true });
  await page.setViewportSize(PHONE);
  await page.screenshot({ path: join(SCREENSHOTS, `${name}-390.png`), fullPage: true });
  await page.setViewportSize(size);
}

/**
 * Every path the UI's router answers GET on, read from the router itself (an app built with no
 * services: registering routes uses none), so a page added later is covered by the tests that
 * walk them without anyone listing it.
 */
export function routerPaths(): string[] {
  const app = createApp({} as Parameters<typeof createApp>[0], newSession('routes'), () => new Set());
  return [...new Set(app.routes.filter((route) => route.method === 'GET').map((route) => route.path))];
}

/** A concrete address for a route: each `:param` from `values`; a param it has no value for fails, naming it. */
export function addressOf(route: string, values: Record<string, string>): string {
  return route.replace(/:(\w+)(\{[^}]*\})?/g, (_, name: string) => {
    if (!(name in values))
      throw new Error(`the route ${route} has a :${name} the page tests have no value for: add one to their samples`);
    return encodeURIComponent(values[name]);
  });
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[]; failureSummary?: string }[];
}

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** The rules whose outcome depends on the colours alone: what a second colour scheme is checked for. */
export const COLOUR_RULES = ['color-contrast', 'link-in-text-block'];
/** The rules whose outcome depends on the width: what a phone's viewport is checked for (a table that scrolls there). */
export const WIDTH_RULES = ['scrollable-region-focusable'];

/**
 * axe-core's serious and critical findings on the page as it is now (injected directly: CDP ignores
 * the page's CSP), every rule or only `rules`.
 */
export async function axeProblems(page: Page, rules?: readonly string[]): Promise<AxeViolation[]> {
  const violations = await page.evaluate(
    async ([source, only]) => {
      const scope = globalThis as unknown as {
        axe?: { run: (context: unknown, options: unknown) => Promise<{ violations: unknown[] }> };
      };
      const { document } = globalThis as unknown as { document: unknown };
      if (!scope.axe) (0, eval)(source);
      const options = only ? { resultTypes: ['violations'], runOnly: only } : { resultTypes: ['violations'] };
      return (await scope.axe!.run(document, options)).violations;
    },
    [AXE, rules ? [...rules] : null] as const,
  );
  return (violations as AxeViolation[]).filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/**
 * What makes the page wider than its viewport (on a phone: a page that scrolls sideways), as
 * `tag.class` of the outermost elements that stick out; scrolling regions (tables, code) may hold
 * wider content. Empty when the page fits.
 */
export async function overflowing(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    type Box = { right: number };
    type Element = {
      tagName: string;
      className: unknown;
      parentElement: Element | null;
      getBoundingClientRect(): Box;
      closest(selector: string): unknown;
    };
    const { document } = globalThis as unknown as {
      document: { documentElement: { clientWidth: number }; querySelectorAll(s: string): Element[] };
    };
    const width = document.documentElement.clientWidth;
    const out = (e: Element | null) => e !== null && e.getBoundingClientRect().right > width + 1;
    return [...document.querySelectorAll('body *')]
      .filter((e) => out(e) && !out(e.parentElement) && !e.parentElement?.closest('.table-wrap, pre'))
      .map((e) => `${e.tagName.toLowerCase()}.${String(e.className).replace(/ /g, '.')}`);
  });
}

/** Findings as lines a failing test prints: rule, impact, where, and why. */
export function describeProblems(url: string, violations: readonly AxeViolation[]): string[] {
  return violations.flatMap((v) =>
    v.nodes.map(
      (node) => `${url}: ${v.id} (${v.impact}) at ${node.target.join(' ')}: ${node.failureSummary ?? v.help}`,
    ),
  );
}

/** An MCP client that introduces itself as `name` `version`, talking to `factorly serve` over stdio in `root`. */
export async function mcpAgent(root: string, name: string, version: string): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'serve'],
    cwd: root,
    env: env(root) as Record<string, string>,
    stderr: 'ignore',
  });
  const client = new Client({ name, version });
  await client.connect(transport);
  return client;
}
