import { streamSSE } from 'hono/streaming';
import type { Hono } from 'hono';
import type { AppDeps } from '../app-deps.js';
import { approvalsList } from './approvals.js';
import { filterOf, historyRow } from './history.js';

const KEEPALIVE_MS = 15_000;

/**
 * Server-sent events for open pages: `call` carries a history row (new or updated) that passes the
 * page's filters, `approvals` the pending count and list whenever it changes.
 */
export function registerLive(app: Hono, deps: AppDeps): void {
  app.get('/events', (c) => {
    const filter = filterOf(c.req.query());
    return streamSSE(c, async (sse) => {
      const send = (event: string, data: unknown): void => {
        sse.writeSSE({ event, data: JSON.stringify(data) }).catch(() => undefined);
      };
      const off = deps.live.on((update) => {
        if (update.kind === 'call') {
          if (deps.services.matches(update.entry, filter)) send('call', { id: `call-${update.entry.callId}`, html: historyRow(update.entry).text });
        } else {
          const pending = deps.approvals.list();
          send('approvals', { count: pending.length, html: approvalsList(pending, deps.page()).text });
        }
      });
      const keepalive = setInterval(() => sse.writeSSE({ event: 'ping', data: '' }).catch(() => undefined), KEEPALIVE_MS);
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
