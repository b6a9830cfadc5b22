// `factorly ui` in a project: the first GET /dashboard once the UI printed its address (the
// dashboard's persisted projection opened from its snapshot, the evidence check starting beside
// it), then the median of later ones, each page read to its end; then /agents (the agent activity
// projection) the same way, and every /history view (`ui-history.mjs`).
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { now, round, summarize } from './stats.mjs';
import { historyLatencies, timedGet } from './ui-history.mjs';

/**
 * GET /audit once the first full verification has ended (polled until the page shows it), then the
 * median of later opens: each answers from the newest result, brought up to date with the events
 * since, while a full verification runs again in the background.
 */
async function auditLatencies(url, cookie, requests, started) {
  const audit = async () => {
    const t = now();
    const response = await fetch(new URL('/audit', url.origin), { headers: { cookie } });
    const body = await response.text();
    if (response.status !== 200) throw new Error(`/audit answered ${response.status}: ${body.slice(0, 200)}`);
    return { ms: now() - t, checked: /events verified\./.test(body) };
  };
  for (;;) {
    const { checked } = await audit();
    if (checked) break;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  const firstCheckMs = now() - started;
  const later = [];
  for (let k = 0; k < requests; k += 1) later.push((await audit()).ms);
  return { firstCheckMs: round(firstCheckMs, 0), later: summarize(later) };
}

export async function dashboardLatencies({ repo, cwd, requests }) {
  const child = spawn(process.execPath, [join(repo, 'bin', 'run.js'), 'ui', '--port', '0', '--no-open'], {
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise((resolve) => child.on('exit', resolve));
  try {
    const started = now();
    const url = await new Promise((resolve, reject) => {
      child.once('exit', (code) => reject(new Error(`factorly ui exited with ${code}: ${stderr}`)));
      createInterface({ input: child.stdout }).on('line', (line) => {
        const match = /^factorly ui: (http:\/\/\S+)$/.exec(line);
        if (match) resolve(new URL(match[1]));
      });
    });
    const startMs = now() - started;
    const login = await fetch(url, { redirect: 'manual' });
    const cookie = login.headers.get('set-cookie')?.split(';')[0];
    if (!cookie) throw new Error(`the UI set no session cookie (status ${login.status})`);
    const timed = (path, expected) => async () => {
      const t = now();
      const response = await fetch(new URL(path, url.origin), { headers: { cookie } });
      const body = await response.text();
      const ms = now() - t;
      if (response.status !== 200 || !body.includes(expected))
        throw new Error(`${path} answered ${response.status}: ${body.slice(0, 200)}`);
      return ms;
    };
    const series = async (page) => {
      const firstMs = await page();
      const later = [];
      for (let k = 0; k < requests; k += 1) later.push(await page());
      return { firstMs: round(firstMs, 1), later: summarize(later) };
    };
    const dashboard = await series(timed('/dashboard', '<svg'));
    const agents = await series(timed('/agents', '<table class="agents">'));
    const audit = await auditLatencies(url, cookie, requests, started);
    // Once the first full verification has ended, as /history is opened on a UI that has run a while.
    const history = await historyLatencies(timedGet(url.origin, cookie), requests);
    return { startMs: round(startMs, 1), ...dashboard, agents, history, audit };
  } finally {
    child.kill('SIGINT');
    await exited;
  }
}
