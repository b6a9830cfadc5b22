import type { ParameterSpec, PreparedDefinition, ToolDefinition } from 'factorly';
import { placeholders } from './template.js';

export type BodyType = 'json' | 'form' | 'raw';

/**
 * Which redirects a call follows: `same-origin` (the default) only those that stay on the origin
 * that was asked (a redirect elsewhere is refused); `any` every one, but a hop to another origin
 * carries nothing that holds a resolved secret; `none` no redirect at all.
 */
export type FollowRedirects = 'same-origin' | 'any' | 'none';
export const FOLLOW_REDIRECTS: readonly FollowRedirects[] = ['same-origin', 'any', 'none'];

export type RestAuth =
  | { type: 'bearer'; token: string }
  | { type: 'basic'; token: string }
  | { type: 'header'; header: string; value: string }
  /**
   * A provider of the config's `oauth_providers`: shorthand for a bearer `token: "{{oauth:<provider>}}"`,
   * which `prepareRest` writes beside it (so the entry shows, and the boot plan sees, the secret it uses).
   */
  | { type: 'oauth'; provider: string; token: string };

/** The `rest` keys of a tool definition, validated. */
export interface RestSpec {
  baseUrl: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  bodyType: BodyType;
  auth?: RestAuth;
  followRedirects: FollowRedirects;
  /**
   * A top-level field of a JSON answer that, when present and not empty, makes a successful HTTP
   * status a failure: APIs that answer 200 with their error inside (Slack's `error` beside
   * `ok: false`, GraphQL's `errors`).
   */
  errorField?: string;
}

export const REST_KEYS = [
  'base_url',
  'method',
  'path',
  'headers',
  'body',
  'body_type',
  'auth',
  'follow_redirects',
  'error_field',
] as const;

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
const BODY_TYPES: readonly BodyType[] = ['json', 'form', 'raw'];
/** The secret (`<backend>:KEY`) holding an OAuth provider's access token: the oauth plugin's backend. */
export function oauthSecret(provider: string): string {
  return `oauth:${provider}`;
}

const AUTH_FIELDS: Record<RestAuth['type'], string[]> = {
  bearer: ['token'],
  basic: ['token'],
  header: ['header', 'value'],
  oauth: ['provider'],
};

export function readRestSpec(tool: ToolDefinition): RestSpec {
  const {
    base_url: baseUrl,
    method,
    path,
    headers,
    body,
    body_type: bodyType,
    auth,
    follow_redirects: followRedirects,
    error_field: errorField,
  } = tool.spec;
  return {
    ...(typeof errorField === 'string' ? { errorField } : {}),
    followRedirects: (followRedirects as FollowRedirects | undefined) ?? 'same-origin',
    baseUrl: String(baseUrl ?? ''),
    method: String(method ?? 'GET').toUpperCase(),
    path: typeof path === 'string' ? path : '',
    headers: isStringMap(headers) ? stringify(headers) : {},
    body: typeof body === 'string' ? body : undefined,
    bodyType: (bodyType as BodyType | undefined) ?? 'json',
    auth: auth as RestAuth | undefined,
  };
}

/** Load-time checks, so a typo is a config error rather than a failed call. */
export function prepareRest(tool: ToolDefinition): PreparedDefinition {
  const problems: string[] = [];
  const { base_url: baseUrl, method, path, headers, body, body_type: bodyType } = tool.spec;
  if (typeof baseUrl !== 'string' || baseUrl.trim() === '') problems.push('is a rest tool but has no base_url');
  else if (!/^https?:\/\//i.test(baseUrl) && !baseUrl.startsWith('{{'))
    problems.push(`has base_url ${JSON.stringify(baseUrl)}, which is not an http:// or https:// URL`);
  if (typeof method !== 'string' || method.trim() === '') problems.push('is a rest tool but has no method');
  else if (!METHODS.includes(method.toUpperCase()))
    problems.push(`has unknown method ${JSON.stringify(method)} (valid: ${METHODS.join(', ')})`);
  if (path !== undefined && typeof path !== 'string') problems.push('has "path" that is not a string template');
  if (headers !== undefined && !isStringMap(headers))
    problems.push('has "headers" that is not a mapping of names to strings');
  if (body !== undefined && typeof body !== 'string') problems.push('has "body" that is not a string template');
  if (bodyType !== undefined && !BODY_TYPES.includes(bodyType as BodyType)) {
    problems.push(`has unknown body_type ${JSON.stringify(bodyType)} (valid: ${BODY_TYPES.join(', ')})`);
  }
  problems.push(...authProblems(tool.spec.auth));
  const errorField = tool.spec.error_field;
  if (errorField !== undefined && (typeof errorField !== 'string' || errorField.trim() === ''))
    problems.push('has "error_field" that is not the name of a field (e.g. error_field: errors)');
  const follow = tool.spec.follow_redirects;
  if (follow !== undefined && !FOLLOW_REDIRECTS.includes(follow as FollowRedirects)) {
    problems.push(`has unknown follow_redirects ${JSON.stringify(follow)} (valid: ${FOLLOW_REDIRECTS.join(', ')})`);
  }
  if (problems.length > 0) return { problems };
  const auth = tool.spec.auth as RestAuth | undefined;
  if (auth?.type === 'oauth') tool.spec.auth = { ...auth, token: `{{${oauthSecret(auth.provider)}}}` };
  const spec = readRestSpec(tool);
  const templates = [
    spec.baseUrl,
    spec.path,
    ...Object.values(spec.headers),
    ...(spec.body === undefined ? [] : [spec.body]),
  ];
  if (tool.parameters.length === 0) return { problems, inferredParameters: inferParameters(templates) };
  const declared = new Set(tool.parameters.map((p) => p.name));
  for (const name of templates.flatMap(placeholders)) {
    if (!declared.has(name)) problems.push(`uses {{${name}}}, which is not one of its parameters`);
  }
  return { problems: [...new Set(problems)] };
}

function authProblems(auth: unknown): string[] {
  if (auth === undefined) return [];
  if (typeof auth !== 'object' || auth === null || Array.isArray(auth))
    return ['has "auth" that is not a mapping (e.g. {type: bearer, token: "{{vault:API_TOKEN}}"})'];
  const { type } = auth as Record<string, unknown>;
  const fields = AUTH_FIELDS[type as RestAuth['type']];
  if (!fields) return [`has auth type ${JSON.stringify(type)} (valid: ${Object.keys(AUTH_FIELDS).join(', ')})`];
  return fields
    .filter((field) => typeof (auth as Record<string, unknown>)[field] !== 'string')
    .map((field) => `has auth type ${String(type)} without a string "${field}"`);
}

/** Parameters inferred from the templates of a tool that declares none: every placeholder, required, a string. */
function inferParameters(templates: readonly string[]): ParameterSpec[] {
  return [...new Set(templates.flatMap(placeholders))].map((name) => ({ name, type: 'string', required: true }));
}

function isStringMap(value: unknown): value is Record<string, string | number | boolean> {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.values(value).every((v) => ['string', 'number', 'boolean'].includes(typeof v))
  );
}

function stringify(map: Record<string, string | number | boolean>): Record<string, string> {
  return Object.fromEntries(Object.entries(map).map(([key, value]) => [key, String(value)]));
}
