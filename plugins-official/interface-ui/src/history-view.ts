import type { AgentDirectory, AuditEntry } from 'factorly';
import { agentLabel, agentName, agentText } from './agents.js';
import { CODE_TOOL } from './app-deps.js';
import { duration, highlights, html, when, type Html } from './html.js';
import { badge, scrolling } from './layout.js';

/** Longest reason shown in a row; the call page shows it whole. */
const REASON_CHARS = 160;

export function canSave(entry: AuditEntry): boolean {
  return entry.tool === CODE_TOOL && entry.status === 'success' && entry.sourceSha !== undefined;
}

export function callHref(callId: string): string {
  return `/calls/${encodeURIComponent(callId)}`;
}

export function toolHref(tool: string): string {
  return `/tools/${encodeURIComponent(tool)}`;
}

/** Why a call failed or was blocked, as one line (its error's first line). */
export function reasonOf(entry: AuditEntry): string | undefined {
  if (!entry.error || entry.status === 'success') return undefined;
  const line = entry.error.trim().split('\n')[0];
  return line.length > REASON_CHARS ? `${line.slice(0, REASON_CHARS - 1)}…` : line;
}

/** One row of a calls table; the live stream sends the same markup. */
export function historyRow(entry: AuditEntry, agents: AgentDirectory): Html {
  const status = entry.status ?? 'running';
  const agent = entry.agentId ? agentName(entry.agentId, agents) : undefined;
  const reason = reasonOf(entry);
  return html`<tr id="call-${entry.callId}" class="row-${status}">
  <td class="t-time"><time datetime="${entry.requestedAt}">${when(entry.requestedAt)}</time></td>
  <td class="t-tool"><a href="${callHref(entry.callId)}">${entry.tool}</a>${entry.parentId ? html` <a class="inner" href="${callHref(entry.parentId)}" title="called by a script: open the script's call">inner</a>` : ''}${highlights(entry.highlightParams)}${reason ? html`<span class="row-reason">${reason}</span>` : ''}<span class="row-sub">${entry.iface}${agent ? ` · ${agentText(agent)}` : ''} · ${duration(entry.durationMs)}</span></td>
  <td>${badge(status)}${entry.shadowAction ? html` ${badge(entry.shadowAction, 'shadow')}` : ''}</td>
  <td class="t-iface">${entry.iface}</td>
  <td class="t-agent">${agent ? agentLabel(agent) : html`<span class="muted">—</span>`}</td>
  <td class="t-dur">${duration(entry.durationMs)}</td>
  <td class="t-act">${canSave(entry) ? html`<a class="button small" href="/tools/promote?from-sha=${entry.sourceSha}">Save as tool</a>` : ''}</td>
</tr>`;
}

/** The calls table's head: every column named (the last one for screen readers only). */
export const HISTORY_HEAD = html`<thead><tr><th>Time</th><th>Tool</th><th>Status</th><th class="t-iface">Via</th><th class="t-agent">Agent</th><th class="t-dur">Duration</th><th class="t-act"><span class="visually-hidden">Actions</span></th></tr></thead>`;

/** Calls, newest first, as a table; `empty` when there are none. */
export function historyTable(entries: readonly AuditEntry[], agents: AgentDirectory, empty: string): Html {
  if (entries.length === 0) return html`<p class="muted">${empty}</p>`;
  return html`${scrolling('Calls', html`<table class="history">${HISTORY_HEAD}<tbody>${entries.map((entry) => historyRow(entry, agents))}</tbody></table>`)}`;
}
