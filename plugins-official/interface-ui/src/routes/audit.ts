import { stream } from 'hono/streaming';
import type { Hono } from 'hono';
import type { AppDeps } from '../app-deps.js';
import { count, html, type Html } from '../html.js';
import type { EventLog, EvidenceFacts, LogVerification } from 'factorly';
import { callHref } from '../history-view.js';
import { brokenAt } from '../evidence-view.js';
import { badge, layout } from '../layout.js';

export function registerAudit(app: Hono, deps: AppDeps): void {
  app.get('/audit', async (c) => {
    // From the newest verification, brought up to date with the events since: no full read of the log here.
    const [chain, stats, facts] = await Promise.all([
      deps.evidence.latest(),
      deps.services.stats(),
      deps.services.evidence(),
    ]);
    const tools = Object.entries(stats.byTool)
      .sort(([, a], [, b]) => b - a)
      .slice(0, 10);
    const blocked = Object.entries(stats.blockedBy).sort(([, a], [, b]) => b - a);
    const calls = await callsAt(deps.log, chain);
    const body = html`<h1>Audit</h1>
${chainSection(chain, calls)}
${checkpointSection(facts)}
<section><h2>Calls</h2><dl class="stats">
<dt>Events</dt><dd>${count(stats.events)}</dd><dt>Calls</dt><dd><a href="/history">${count(stats.calls)}</a></dd>
${Object.entries(stats.byStatus).map(([status, n]) => html`<dt>${status}</dt><dd><a href="/history?status=${encodeURIComponent(status)}">${count(n)}</a></dd>`)}
</dl></section>
<section><h2>Top tools</h2>${tools.length === 0 ? html`<p class="muted">No calls yet.</p>` : html`<ul class="bars">${tools.map(([tool, n]) => html`<li><a href="/history?${new URLSearchParams({ tool }).toString()}">${tool}</a><b>${count(n)}</b></li>`)}</ul>`}</section>
<section><h2>Blocked <small>by rule</small></h2>${blocked.length === 0 ? html`<p class="muted">Nothing was blocked.</p>` : html`<ul class="bars">${blocked.map(([why, n]) => html`<li><span>${why}</span><a href="/history?status=blocked"><b>${count(n)}</b></a></li>`)}</ul>`}</section>`;
    return c.html(layout('Audit', '/audit', body, deps.page(), '').text);
  });

  // What an auditor takes elsewhere to check a copy of the log: the newest checkpoint and its key.
  app.get('/audit/checkpoint.txt', async (c) => {
    const { checkpoint } = await deps.services.evidence();
    if (!checkpoint)
      return c.text('The log holds no signed checkpoint yet (factorly logs checkpoint signs one).\n', 404);
    c.header('Content-Disposition', `attachment; filename="checkpoint-${checkpoint.size}.txt"`);
    return c.text(checkpoint.note);
  });
  app.get('/audit/log.pub', async (c) => {
    const { verifierKey } = await deps.services.evidence();
    if (!verifierKey) return c.text('No verifier key was published yet (factorly logs key makes one).\n', 404);
    c.header('Content-Disposition', 'attachment; filename="log.pub"');
    return c.text(`${verifierKey}\n`);
  });

  // The raw envelopes with their hashes, one per line, as `factorly logs export` writes them.
  app.get('/audit/export', (c) => {
    c.header('Content-Type', 'application/x-ndjson; charset=utf-8');
    c.header('Content-Disposition', 'attachment; filename="factorly-events.jsonl"');
    return stream(c, async (out) => {
      for await (const event of deps.log.read()) {
        if (out.aborted) break;
        await out.write(`${JSON.stringify(event)}\n`);
      }
    });
  });
}

/** Findings whose event is looked up for the call it belongs to. */
const LINKED_FINDINGS = 20;

/** The call each finding's event belongs to (an event that names one and can still be read). */
async function callsAt(log: EventLog, chain: LogVerification | undefined): Promise<Map<number, string>> {
  const calls = new Map<number, string>();
  if (!chain || chain.ok) return calls;
  const seqs = new Set([brokenAt(chain), ...chain.findings.slice(0, LINKED_FINDINGS).map((f) => f.seq)]);
  for (const seq of seqs) {
    if (seq === undefined) continue;
    try {
      for await (const event of log.read({ from: seq, to: seq })) {
        const callId = (event.data as { callId?: unknown } | undefined)?.callId;
        if (typeof callId === 'string') calls.set(seq, callId);
      }
    } catch {
      // An event the log cannot read any more: the finding is shown without its call.
    }
  }
  return calls;
}

function seqLink(seq: number, calls: Map<number, string>): Html {
  const callId = calls.get(seq);
  return callId
    ? html`<a class="finding-call" href="${callHref(callId)}" title="The call this event belongs to">seq ${seq}</a>`
    : html`seq ${seq}`;
}

function chainSection(chain: LogVerification | undefined, calls: Map<number, string>): Html {
  if (!chain)
    return html`<section class="chain chain-checking"><h2>Hash chain ${badge('verifying', 'running')}</h2>
<p>The first full verification of the log is under way; this page shows it once it ends.</p></section>`;
  const summary = chain.ok
    ? html`${count(chain.verified)} events verified.`
    : html`Broken at ${seqLink(brokenAt(chain), calls)}${chain.firstBad ? ` (${chain.firstBad.kind}): ${chain.firstBad.reason}` : ''}; ${count(chain.verified)} events before it verified.`;
  return html`<section class="chain ${chain.ok ? 'chain-ok' : 'chain-bad'}" id="chain"><h2>Hash chain ${badge(chain.ok ? 'intact' : 'broken', chain.ok ? 'success' : 'error')}</h2>
<p>${summary}</p>
${chain.findings.length > 1 ? html`<ul class="findings">${chain.findings.map((finding) => html`<li>${finding.kind}${finding.seq === undefined ? '' : html` at ${seqLink(finding.seq, calls)}`}: ${finding.reason}</li>`)}</ul>` : ''}
${chain.tree.size > 0 ? html`<p class="muted">Merkle tree over ${count(chain.tree.size)} events, root <code>${chain.tree.rootHash}</code>.</p>` : ''}
<p><a class="button" href="/audit/export" download>Export the log (JSONL)</a></p></section>`;
}

function checkpointSection({ checkpoint, verifierKey }: EvidenceFacts): Html {
  if (!checkpoint)
    return html`<section id="checkpoint"><h2>Signed checkpoint</h2><p class="muted">None yet: <code>factorly logs checkpoint</code> signs one.</p></section>`;
  return html`<section id="checkpoint"><h2>Signed checkpoint</h2>
<dl class="stats"><dt>Events</dt><dd>${count(checkpoint.size)}</dd><dt>Signed</dt><dd><time datetime="${checkpoint.at}">${checkpoint.at}</time></dd><dt>Log</dt><dd>${checkpoint.origin}</dd><dt>Root</dt><dd><code>${checkpoint.rootHash}</code></dd></dl>
<p><a class="button" href="/audit/checkpoint.txt" download>Download the checkpoint</a>${verifierKey ? html` <a class="button" href="/audit/log.pub" download>Download the verifier key</a>` : ''}</p>
<p class="muted">Kept elsewhere, they prove later that this log was not rewritten: <code>factorly logs verify --checkpoint checkpoint-${checkpoint.size}.txt --key log.pub</code>.</p></section>`;
}
