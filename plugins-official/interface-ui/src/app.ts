import { writeStderrLine } from '@factorly/text-kit';
import { readFileSync } from 'node:fs';
import { Hono } from 'hono';
import type { AppDeps } from './app-deps.js';
import { csrfCheck, hostCheck, securityHeaders, sessionCheck, type Session } from './security.js';
import { html } from './html.js';
import { notFound } from './layout.js';
import { registerAgents } from './routes/agents.js';
import { registerApprovals } from './routes/approvals.js';
import { registerAudit } from './routes/audit.js';
import { registerImport } from './routes/blueprint-import.js';
import { registerBlueprints } from './routes/blueprints.js';
import { registerAuth } from './routes/auth.js';
import { registerCalls } from './routes/calls.js';
import { registerDashboard } from './routes/dashboard.js';
import { registerHistory } from './routes/history.js';
import { registerLive } from './routes/live.js';
import { registerPins } from './routes/pins.js';
import { registerPromote } from './routes/promote.js';
import { registerToolEdit } from './routes/tool-edit.js';
import { registerTools } from './routes/tools.js';
import { registerVault } from './routes/vault.js';

const STATIC_DIR = new URL('../../static/', import.meta.url);
const STATIC_TYPES: Record<string, string> = {
  'app.js': 'text/javascript; charset=utf-8',
  'app.css': 'text/css; charset=utf-8',
};

/** The UI's routes behind its guards: host, session, then CSRF and origin for anything that writes. */
export function createApp(deps: AppDeps, session: Session, hosts: () => ReadonlySet<string>): Hono {
  const app = new Hono();
  const files = new Map(
    Object.keys(STATIC_TYPES).map((name) => [name, readFileSync(new URL(name, STATIC_DIR), 'utf8')]),
  );
  app.use('*', securityHeaders, hostCheck(hosts), sessionCheck(session), csrfCheck(session));
  app.get('/static/:file', (c) => {
    const file = c.req.param('file');
    const text = files.get(file);
    if (text === undefined) return c.text('not found', 404);
    return c.body(text, 200, { 'Content-Type': STATIC_TYPES[file] });
  });
  app.get('/', (c) => c.redirect('/dashboard', 303));
  registerDashboard(app, deps);
  registerHistory(app, deps);
  registerCalls(app, deps);
  registerAgents(app, deps);
  registerPromote(app, deps);
  registerToolEdit(app, deps);
  registerTools(app, deps);
  registerPins(app, deps);
  registerVault(app, deps);
  // /blueprints/import before /blueprints/:name, which would take "import" for a name.
  registerImport(app, deps);
  registerBlueprints(app, deps);
  registerAuth(app, deps);
  registerApprovals(app, deps);
  registerAudit(app, deps);
  registerLive(app, deps);
  app.notFound((c) =>
    c.html(
      notFound('Not found', html`No page is at <code>${new URL(c.req.url).pathname}</code>.`, '', deps.page()).text,
      404,
    ),
  );
  app.onError((error, c) => {
    writeStderrLine('factorly ui: ', `${c.req.method} ${new URL(c.req.url).pathname} failed: ${error.message}`);
    return c.text(`error: ${error.message}`, 500);
  });
  return app;
}
