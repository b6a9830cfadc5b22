import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { chromium, type Browser, type Page } from 'playwright-core';
import { BIN, REPO } from '../../../test/helpers/project.js';
import { projectEvents } from '../../../test/helpers/events.js';

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

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the built CLI without blocking the test (stdin is a pipe: no terminal to answer on). */
export function cli(args: string[], root: string, extraEnv: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: root,
      env: env(root, extraEnv),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdin.end();
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
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

/** The page at 1280×800 and, full length, at a phone's 390 px width, saved as test artifacts. */
export async function shoot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const { width, height } = page.viewportSize() ?? { width: 1280, height: 800 };
  await page.screenshot({ path: join(SCREENSHOTS, `${name}-1280.png`), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}-390.png`), fullPage: true });
  await page.setViewportSize({ width, height });
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
