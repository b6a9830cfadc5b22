import type { Params } from '../events/catalog.js';
import type { AuditEntry } from '../events/projections/audit.js';
import { printableLine } from '../base/printable.js';
import { table } from './table.js';

/** The `--json` shape of one call (snake_case, stable for scripts). */
export function auditJson(entry: AuditEntry) {
  return {
    timestamp: entry.requestedAt,
    call_id: entry.callId,
    parent_id: entry.parentId ?? null,
    root_id: entry.rootId,
    interface: entry.iface,
    tool: entry.tool,
    params: entry.params,
    highlight_params: entry.highlightParams ?? null,
    status: entry.status ?? 'running',
    exit_code: entry.exitCode ?? null,
    duration_ms: entry.durationMs ?? null,
    shadow_action: entry.shadowAction ?? null,
    agent: entry.agentId ?? null,
    source_sha: entry.sourceSha ?? null,
    engine: entry.engine ?? null,
    replayed_from: entry.replayedFrom ?? null,
    output_bytes: entry.outputBytes ?? null,
    error: entry.error ?? null,
    seq: entry.seq,
    hash: entry.hash,
  };
}

/** The table of `factorly logs`, readable at 80 columns (highlighted params are cut first). */
export function auditTable(entries: readonly AuditEntry[]): string {
  const columns: AuditColumns = {
    withDate: new Set(entries.map((e) => e.requestedAt.slice(0, 10))).size > 1,
    withShadow: entries.some((e) => e.shadowAction !== undefined && e.shadowAction !== 'allow'),
    withHighlight: entries.some((e) => e.highlightParams !== undefined),
  };
  const headers = [
    'TIME',
    'TOOL',
    'STATUS',
    'DURATION',
    ...(columns.withShadow ? ['SHADOW'] : []),
    ...(columns.withHighlight ? ['HIGHLIGHT'] : []),
  ];
  return table(
    headers,
    entries.map((e) => auditRow(e, columns)),
    80,
    columns.withHighlight ? headers.length - 1 : undefined,
  );
}

/** Which of the optional columns a table shows. */
export interface AuditColumns {
  withDate: boolean;
  withShadow: boolean;
  withHighlight: boolean;
}

/** One row of the table. */
export function auditRow(entry: AuditEntry, columns: AuditColumns): string[] {
  return [
    formatTime(entry.requestedAt, columns.withDate),
    entry.tool,
    entry.status ?? 'running',
    entry.durationMs === undefined ? '—' : `${entry.durationMs}ms`,
    ...(columns.withShadow ? [entry.shadowAction ?? ''] : []),
    ...(columns.withHighlight ? [paramsText(entry.highlightParams ?? {})] : []),
  ];
}

/** Params as `name=value` pairs separated by spaces (values that are not strings as JSON). */
export function paramsText(params: Params): string {
  return Object.entries(params)
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(' ');
}

/** The `--detail` block of one call. */
export function auditDetail(entry: AuditEntry): string {
  const sorted = Object.entries(entry.params).sort(([a], [b]) => a.localeCompare(b));
  const params = paramsText(Object.fromEntries(sorted));
  const lines = [
    `——— ${entry.requestedAt.replace('T', ' ').slice(0, 19)} ———`,
    `Tool:      ${entry.tool}`,
    `Status:    ${entry.status ?? 'running'}${entry.exitCode === undefined ? '' : ` (exit ${entry.exitCode})`}`,
    `Duration:  ${entry.durationMs === undefined ? '—' : `${entry.durationMs}ms`}`,
    `Interface: ${entry.iface}`,
    ...(entry.agentId ? [`Agent:     ${entry.agentId}`] : []),
    ...(entry.shadowAction ? [`Shadow:    ${entry.shadowAction}`] : []),
    `Params:    ${params || '—'}`,
    ...(entry.highlightParams ? [`Highlight: ${paramsText(entry.highlightParams)}`] : []),
    ...(entry.error ? [`Error:     ${cut(entry.error, 100)}`] : []),
    ...(entry.outputBytes === undefined ? [] : [`Output:    ${entry.outputBytes} bytes`]),
    ...(entry.sourceSha ? [`Source:    ${entry.sourceSha.slice(0, 16)}…`] : []),
    ...(entry.engine ? [`Engine:    ${entry.engine.name} (${entry.engine.version})`] : []),
    `Call:      ${entry.callId}${entry.parentId ? ` (parent ${entry.parentId})` : ''}`,
    `Hash:      ${entry.hash.slice(0, 16)}… (seq ${entry.seq})`,
  ];
  return lines.map(printableLine).join('\n');
}

function cut(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max)}…` : line;
}

function formatTime(iso: string, withDate: boolean): string {
  const date = new Date(iso);
  const time = date.toTimeString().slice(0, 8);
  return withDate ? `${date.toLocaleString('en-US', { month: 'short', day: '2-digit' })} ${time}` : time;
}
