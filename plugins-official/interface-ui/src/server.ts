import { writeStderrLine } from '@factorly/text-kit';
import { FactorlyError } from '@factorly/error-kit';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { servedHosts } from '@factorly/net-guard';
import { serve } from '@hono/node-server';
import type { ToolPins } from '@factorly/plugin-pins/api';
import type { ShadowPolicies } from '@factorly/plugin-shadow/api';
import type {
  CallGateway,
  EventLog,
  InterfaceOptions,
  KeyedRegistry,
  OAuthClient,
  ProjectPaths,
  SecretBackend,
  HostServices,
} from 'factorly';
import { createApp } from './app.js';
import { Approvals, reapWhilePending } from './approvals.js';
import { EvidenceWatch } from './evidence-watch.js';
import { evidenceBadges } from './evidence-view.js';
import { LiveFeed } from './live-feed.js';
import { PendingLogins } from './logins.js';
import { newSession } from './security.js';
import { removeLock, writeLock } from './ui-lock.js';

export interface UiKernel {
  /** The host's audit queries, promotion and editing (absent when the kernel runs under another host than the CLI). */
  services?: HostServices;
  policies?: ShadowPolicies;
  pins?: ToolPins;
  gateway: CallGateway;
  paths: ProjectPaths;
  backends: KeyedRegistry<SecretBackend>;
  openLog: () => EventLog;
  /** The oauth plugin's client, for the Auth page. */
  oauth?: OAuthClient;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

/**
 * Serves the web UI until `signal` aborts: prints the address with a fresh session token, announces
 * itself to other factorly processes of the project (so their confirmations wait for it), and on
 * shutdown ends the event streams, lets in-flight requests finish and withdraws the announcement.
 */
export async function serveUi(options: InterfaceOptions, kernel: UiKernel, signal: AbortSignal): Promise<void> {
  const { services } = kernel;
  if (!services)
    throw new FactorlyError(
      'USAGE',
      'the ui interface needs the host services the factorly CLI provides; start it with `factorly ui`',
    );
  const host = String(options.host ?? '127.0.0.1');
  const port = Number(options.port ?? 3741);
  const log = kernel.openLog();
  const approvals = new Approvals(log);
  const live = new LiveFeed(log, services, approvals);
  await live.start();
  const evidence = new EvidenceWatch(log, services);
  await evidence.start();
  const session = newSession(randomBytes(16).toString('hex'));
  const closing = new AbortController();
  const logins = kernel.oauth ? new PendingLogins(kernel.oauth) : undefined;
  const page = () => ({
    csrf: session.csrf,
    pending: approvals.list().length,
    badges: evidenceBadges(evidence.current()),
  });
  let hosts: ReadonlySet<string> = new Set();
  const app = createApp(
    {
      services,
      policies: kernel.policies,
      pins: kernel.pins,
      gateway: kernel.gateway,
      log,
      paths: kernel.paths,
      backends: kernel.backends,
      ...(kernel.oauth ? { oauth: kernel.oauth, logins } : {}),
      approvals,
      live,
      evidence,
      page,
      closing: closing.signal,
    },
    session,
    () => hosts,
  );
  let server: Server;
  try {
    server = await listen(app.fetch, host, port);
  } catch (error) {
    evidence.stop();
    await live.stop();
    throw error;
  }
  // Known once listening (port 0 picks one); set before any request is read.
  hosts = servedHosts(
    host,
    (server.address() as AddressInfo).port,
    Array.isArray(options.allowedHosts) ? options.allowedHosts.map(String) : [],
  );
  startBackground(services, approvals, closing.signal);
  announce(server, host, kernel.paths.stateDir, session.token, options.open === true);
  try {
    await new Promise<void>((resolve) =>
      signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true }),
    );
  } finally {
    removeLock(kernel.paths.stateDir);
    closing.abort();
    logins?.cancelAll();
    evidence.stop();
    await live.stop();
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
    });
  }
}

/**
 * What the UI does beside answering pages: folds the log for the dashboard and agent names now, so
 * the first page does not wait for it, and takes away the cards of callers that were killed.
 */
function startBackground(services: HostServices, approvals: Approvals, closing: AbortSignal): void {
  const warn = (what: string) => (error: unknown) => writeStderrLine('factorly ui: ', `${what}: ${String(error)}`);
  void Promise.all([services.agents(), services.dashboard('24h')]).catch(warn('could not fold the log'));
  reapWhilePending(approvals, () => services.recoverInterrupted(), closing, warn('could not look for ended callers'));
}

/**
 * Tells where the UI answers: the lock other factorly processes find it by, a warning when it is
 * bound off loopback, and the URL with its token (opened in a browser when asked).
 */
function announce(server: Server, host: string, stateDir: string, token: string, open: boolean): void {
  const shown = LOOPBACK.has(host) || host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  const url = `http://${shown}:${(server.address() as AddressInfo).port}/`;
  writeLock(stateDir, { pid: process.pid, url });
  if (!LOOPBACK.has(host))
    process.stderr.write(
      `⚠ WARNING: the UI is bound to ${host}: meant for local use only; anyone who gets the token can call your tools.\n`,
    );
  process.stdout.write(`factorly ui: ${url}?token=${token}\n`);
  if (open) openBrowser(`${url}?token=${token}`);
}

function listen(fetch: Parameters<typeof serve>[0]['fetch'], hostname: string, port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = serve({ fetch, hostname, port }) as Server;
    server.once('listening', () => resolve(server));
    server.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE')
        reject(
          new FactorlyError(
            'LISTEN_FAILED',
            `port ${port} on ${hostname} is in use; pass --port with another port (0 picks a free one)`,
          ),
        );
      else reject(new FactorlyError('LISTEN_FAILED', `cannot listen on ${hostname}:${port}: ${error.message}`));
    });
  });
}

/** Best effort: a machine without a desktop just keeps the printed address. */
function openBrowser(url: string): void {
  const command = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
  try {
    const child = spawn(command, [url], { stdio: 'ignore', detached: true });
    child.on('error', () => undefined);
    child.unref();
  } catch {
    // No opener installed.
  }
}
