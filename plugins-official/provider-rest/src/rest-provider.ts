import type { Resolver } from '@factorly/net-guard';
import type { ToolCall, ToolDefinition, ToolProvider, ToolResult } from 'factorly';
import { buildRequest } from './build-request.js';
import { oauthSecret, prepareRest, readRestSpec, REST_KEYS, type RestSpec } from './rest-spec.js';
import { send, type Steering } from './send.js';
import { placeholders } from './template.js';

export interface RestOptions {
  /** How the guarded hops resolve host names (default: the system's `dns.lookup`). */
  resolve?: Resolver;
}

/**
 * `type: rest`: one HTTP request per call through undici's fetch. A status of 400 or more is an
 * error whose output keeps the response body; the error names the status. A timeout exits 124,
 * as a timed-out `cli` tool does. Redirects follow `follow_redirects` (see send.ts).
 */
export class RestProvider implements ToolProvider {
  readonly type = 'rest';
  readonly keys = REST_KEYS;

  constructor(private readonly options: RestOptions = {}) {}

  prepare(tool: ToolDefinition) {
    return prepareRest(tool);
  }

  async execute(call: ToolCall): Promise<ToolResult> {
    const spec = readRestSpec(call.tool);
    let request = await buildRequest(spec, call.tool, call.params, call.secrets);
    let sent: Awaited<ReturnType<typeof send>>;
    try {
      sent = await send(request, call, spec.followRedirects, steering(spec, call), this.options.resolve);
      // An OAuth token the API refused (revoked, expired early): refreshed once, and the request sent again.
      if (spec.auth?.type === 'oauth' && 'status' in sent && sent.status === 401 && call.secrets.refresh) {
        await call.secrets.refresh(oauthSecret(spec.auth.provider));
        request = await buildRequest(spec, call.tool, call.params, call.secrets);
        sent = await send(request, call, spec.followRedirects, steering(spec, call), this.options.resolve);
      }
    } catch (error) {
      return failure(error, call, `${request.method} ${request.url.origin}${request.url.pathname}`);
    }
    if ('error' in sent) return { output: '', error: sent.error, exitCode: sent.exitCode, ...diagnostics(sent.notes) };
    const { status, statusText, text, notes } = sent;
    if (status >= 400)
      return { output: text, error: `HTTP ${status} ${statusText}`.trim(), exitCode: 1, ...diagnostics(notes) };
    const inBody = spec.errorField === undefined ? undefined : errorInBody(text, spec.errorField);
    if (inBody !== undefined)
      return { output: text, error: `HTTP ${status}: ${inBody}`, exitCode: 1, ...diagnostics(notes) };
    return { output: text, exitCode: 0, ...diagnostics(notes) };
  }
}

const ERROR_TEXT_CAP = 500;

/** The error a JSON answer holds in `field` (`error_field`), as one line; undefined when it holds none. */
function errorInBody(text: string, field: string): string | undefined {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const value = (body as Record<string, unknown>)[field];
  if (value === undefined || value === null || value === false || value === '') return undefined;
  if (Array.isArray(value) && value.length === 0) return undefined;
  const messages = Array.isArray(value) ? value.map(messageOf) : [messageOf(value)];
  const joined = messages.join('; ');
  return joined.length > ERROR_TEXT_CAP ? `${joined.slice(0, ERROR_TEXT_CAP)}…` : joined;
}

/** A GraphQL error's `message`, Slack's error code, or the value as JSON. */
function messageOf(value: unknown): string {
  if (typeof value === 'string') return value;
  const message = (value as { message?: unknown } | null)?.message;
  return typeof message === 'string' ? message : JSON.stringify(value);
}

/** A tool whose base_url or path takes a param lets the agent steer its URL (see `Steering`). */
function steering(spec: RestSpec, call: ToolCall): Steering {
  const fixedBase = placeholders(spec.baseUrl).length === 0;
  let configuredOrigin: string | undefined;
  try {
    configuredOrigin = fixedBase && !spec.baseUrl.includes('{{') ? new URL(spec.baseUrl).origin : undefined;
  } catch {
    configuredOrigin = undefined;
  }
  return {
    agentSteered: !fixedBase || placeholders(spec.path).length > 0,
    configuredOrigin,
    allowUrls: allowUrlsOf(call.tool),
  };
}

function diagnostics(notes: string[]): { diagnostics?: string } {
  return notes.length === 0 ? {} : { diagnostics: notes.map((note) => `${note}\n`).join('') };
}

function failure(error: unknown, call: ToolCall, target: string): ToolResult {
  if (call.signal.aborted) {
    const timedOut = (call.signal.reason as Error | undefined)?.name === 'TimeoutError';
    return timedOut
      ? { output: '', error: `${target}: request timed out after ${formatMs(call.timeoutMs)}`, exitCode: 124 }
      : { output: '', error: `${target}: request was cancelled`, exitCode: 130 };
  }
  const cause = (error as { cause?: { message?: string } }).cause?.message;
  return { output: '', error: `${target}: request failed: ${cause ?? (error as Error).message}`, exitCode: 1 };
}

function formatMs(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}

/** `shadow.allow_urls`: where an agent-steered request may go although the SSRF guard would refuse it. */
function allowUrlsOf(tool: ToolDefinition): string[] {
  const listed = tool.shadow?.allow_urls;
  return Array.isArray(listed) ? listed.map(String) : [];
}
