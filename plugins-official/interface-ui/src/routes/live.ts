import { writeStderrLine } from '@factorly/text-kit';
import { streamSSE } from 'hono/streaming';
import type { Hono } from 'hono';
import type { AppDeps } from '../app-deps.js';
import { dashboardPanels } from '../dashboard-view.js';
import { approvalsList } from './approvals.js';
import { rangeOf } from './dashboard.js';
import { historyRow } from '../history-view.js';
import { filterOf } from './history.js';

const KEEPALIVE_MS = 15_000;

/**
 * Server-sent events for open pages: `call` carries a history row (new or updated) that passes the
 * page's filters, `approvals` the pending count and list whenever it changes, and, for the
 * dashboard (`?view=dashboard&range=`), `dashboard` the panels redrawn after calls happened.
 */
export function registerLive(app: Hono, deps: AppDeps): void {
  app.get('/events', (c) => {
    const query = c.req.query();
    const filter = filterOf(query);
    const dashboard = query.view === 'dashboard' ? rangeOf(query.range) : undefined;
    return streamSSE(c, async (sse) => {
      const send = (event: string, data: unknown): void => {
        sse.writeSSE({ event, data: JSON.stringify(data) }).catch(() => undefined);
      };
      const redraw = coalesced(async () => {
        const [figures, agents] = await Promise.all([deps.services.dashboard(dashboard!), deps.services.agents()]);
        send('dashboard', { html: dashboardPanels(figures, agents).text });
      });
      const off = deps.live.on((update) => {
        if (update.kind === 'call') {
          if (dashboard) redraw();
          else if (deps.services.matches(update.entry, filter)) {
            // Agent names come from a fold that serialises its reads, so rows are sent in order.
            void deps.services
              .agents()
              .then((agents) =>
                send('call', { id: `call-${update.entry.callId}`, html: historyRow(update.entry, agents).text }),
              );
          }
        } else {
          const pending = deps.approvals.list();
          void deps.services
            .agents()
            .then((agents) =>
              send('approvals', { count: pending.length, html: approvalsList(pending, deps.page(), agents).text }),
            );
        }
      });
      const keepalive = setInterval(
        () => void sse.writeSSE({ event: 'ping', data: '' }).catch(() => undefined),
        KEEPALIVE_MS,
      );
      await new Promise<void>((resolve) => {
        sse.onAbort(resolve);
        if (deps.closing.aborted) resolve();
        else deps.closing.addEventListener('abort', () => resolve(), { once: true });
      });
      clearInterval(keepalive);
      off();
    });
  });
}

/** Runs `work` when asked; asks that arrive while it runs are folded into one more run afterwards. */
function coalesced(work: () => Promise<void>): () => void {
  let running = false;
  let again = false;
  const run = (): void => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    work()
      .catch((error: unknown) => writeStderrLine('factorly ui: ', `could not redraw the dashboard: ${String(error)}`))
      .finally(() => {
        running = false;
        if (again) {
          again = false;
          run();
        }
      });
  };
  return run;
}
