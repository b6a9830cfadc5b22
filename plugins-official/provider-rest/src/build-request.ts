import { FactorlyError } from '@factorly/error-kit';
import type { ParamLocation, Params, SecretScope, ToolDefinition } from 'factorly';
import type { RestAuth, RestSpec } from './rest-spec.js';
import { asJsonFragment, asText, placeholders, render, type Encode } from './template.js';

export interface HttpRequest {
  url: URL;
  method: string;
  headers: Headers;
  body?: string;
  /** Headers whose value came from a template with a secret reference, or from `auth`: never sent to another origin. */
  secretHeaders: Set<string>;
  /** Whether base_url or path has a secret reference: the URL sent holds a secret, whatever form it took in it. */
  secretInUrl?: boolean;
}

/** `{{backend:KEY}}` in a template: the rendered value holds a secret. */
const SECRET_REFERENCE = /(?<!\\)\{\{\s*[A-Za-z0-9_][A-Za-z0-9_-]*:[^}]+\}\}/;

const METHODS_WITH_BODY = new Set(['POST', 'PUT', 'PATCH']);

/**
 * Builds the HTTP request for one call. Params are routed by their `in` (default: path when the
 * path uses them, else body for POST/PUT/PATCH and query otherwise); secret references in
 * base_url, path, headers, body and auth are resolved through the call's secret scope.
 */
export async function buildRequest(
  spec: RestSpec,
  tool: ToolDefinition,
  params: Params,
  secrets: SecretScope,
): Promise<HttpRequest> {
  const routed = route(spec, tool, params);
  const wire = wireNames(tool);
  const base = await render(spec.baseUrl, params, secrets, asText);
  const path = await render(
    spec.path,
    params,
    secrets,
    (value) => encodeURIComponent(asText(value)),
    (name) => {
      throw new FactorlyError('PARAMS_INVALID', `unresolved path parameter {{${name}}} in tool "${tool.name}"`);
    },
  );
  const url = joinUrl(base, path, tool.name);
  for (const name of routed.query) appendQuery(url, wire(name), params[name]);
  const headers = new Headers();
  const secretHeaders = new Set<string>();
  for (const [name, template] of Object.entries(spec.headers)) {
    headers.set(name, await render(template, params, secrets, asText));
    if (SECRET_REFERENCE.test(template)) secretHeaders.add(name.toLowerCase());
  }
  if (spec.auth) secretHeaders.add(await applyAuth(headers, spec.auth, params, secrets));
  for (const name of routed.header) headers.set(wire(name), asText(params[name]));
  const body = await buildBody(spec, params, routed.body, secrets, tool.name, wire);
  if (body !== undefined && !headers.has('content-type')) {
    headers.set(
      'content-type',
      spec.bodyType === 'form'
        ? 'application/x-www-form-urlencoded'
        : spec.bodyType === 'raw'
          ? 'text/plain; charset=utf-8'
          : 'application/json',
    );
  }
  const secretInUrl = SECRET_REFERENCE.test(spec.baseUrl) || SECRET_REFERENCE.test(spec.path);
  return { url, method: spec.method, headers, body, secretHeaders, secretInUrl };
}

type Routes = Record<ParamLocation, string[]>;

/** A param's name on the wire: its `api_name` (`statuses[]`, `X-Request-Id`) or its own. */
function wireNames(tool: ToolDefinition): (name: string) => string {
  const names = new Map(tool.parameters.map((p) => [p.name, p.apiName ?? p.name]));
  return (name) => names.get(name) ?? name;
}

function route(spec: RestSpec, tool: ToolDefinition, params: Params): Routes {
  const routes: Routes = { query: [], path: [], header: [], body: [] };
  const inPath = new Set(placeholders(spec.path));
  // A param a header, base_url or body template uses is already placed; it is not sent twice.
  const templated = new Set([spec.baseUrl, ...Object.values(spec.headers), spec.body ?? ''].flatMap(placeholders));
  for (const parameter of tool.parameters) {
    const value = params[parameter.name];
    if (value === undefined || value === null) continue;
    const where =
      parameter.in ??
      (inPath.has(parameter.name)
        ? 'path'
        : templated.has(parameter.name)
          ? undefined
          : METHODS_WITH_BODY.has(spec.method)
            ? 'body'
            : 'query');
    if (where !== undefined && where !== 'path') routes[where].push(parameter.name);
  }
  return routes;
}

function joinUrl(base: string, path: string, tool: string): URL {
  const joined = path === '' ? base : `${base.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
  try {
    return new URL(joined);
  } catch {
    throw new FactorlyError('CONFIG_INVALID', `invalid URL for tool "${tool}": ${JSON.stringify(joined)}`);
  }
}

function appendQuery(url: URL, name: string, value: Params[string]): void {
  for (const item of Array.isArray(value) ? value : [value]) {
    const text = asText(item);
    if (text !== '') url.searchParams.append(name, text);
  }
}

/** Sets the auth header; returns its name. */
async function applyAuth(headers: Headers, auth: RestAuth, params: Params, secrets: SecretScope): Promise<string> {
  if (auth.type === 'header') {
    headers.set(auth.header, await render(auth.value, params, secrets, asText));
    return auth.header.toLowerCase();
  }
  const token = await render(auth.token, params, secrets, asText);
  headers.set(
    'authorization',
    auth.type === 'basic' ? `Basic ${Buffer.from(token, 'utf8').toString('base64')}` : `Bearer ${token}`,
  );
  return 'authorization';
}

async function buildBody(
  spec: RestSpec,
  params: Params,
  names: string[],
  secrets: SecretScope,
  tool: string,
  wire: (name: string) => string,
): Promise<string | undefined> {
  if (spec.body !== undefined) {
    const encode: Encode =
      spec.bodyType === 'json'
        ? asJsonFragment
        : spec.bodyType === 'form'
          ? (v) => encodeURIComponent(asText(v))
          : asText;
    return render(spec.body, params, secrets, encode);
  }
  if (names.length === 0) return undefined;
  if (spec.bodyType === 'form')
    return new URLSearchParams(names.flatMap((name) => formPairs(wire(name), params[name]))).toString();
  if (spec.bodyType === 'raw') {
    if (names.length > 1)
      throw new FactorlyError(
        'CONFIG_INVALID',
        `tool "${tool}" has body_type raw but ${names.length} body params (${names.join(', ')}); raw sends exactly one`,
      );
    return asText(params[names[0]]);
  }
  return JSON.stringify(Object.fromEntries(names.map((name) => [wire(name), params[name]])));
}

/**
 * One form field, a mapping or list spelt with brackets as form APIs read them (Stripe, Rails, PHP):
 * `metadata[order]=7`, `items[0][price]=p_1`; a scalar as text.
 */
function formPairs(name: string, value: unknown): [string, string][] {
  if (Array.isArray(value)) return value.flatMap((item, index) => formPairs(`${name}[${index}]`, item));
  if (typeof value === 'object' && value !== null)
    return Object.entries(value).flatMap(([key, item]) => formPairs(`${name}[${key}]`, item));
  return [[name, asText(value)]];
}
