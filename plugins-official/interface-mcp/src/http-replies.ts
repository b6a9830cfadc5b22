import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ErrorCode } from '@factorly/error-kit';
import { errorReply, type ErrorReply } from './framing.js';
import type { AuthRefusal } from './principal.js';
import type { OAuthResource } from './oauth-resource.js';

/** Where RFC 9728 puts a resource's metadata: the well-known prefix, then the resource's path. */
export const METADATA_PREFIX = '/.well-known/oauth-protected-resource';
export const MCP_PATH = '/mcp';

/** The URL a request reached (its Host was checked by the guard before this is asked). */
export function addressed(request: IncomingMessage, path: string): string {
  return `http://${request.headers.host ?? 'localhost'}${path}`;
}

/** RFC 9728 metadata at its well-known place (for `/mcp`, and at the root for clients that look there). */
export function serveMetadata(
  request: IncomingMessage,
  response: ServerResponse,
  oauth: OAuthResource | undefined,
): boolean {
  const path = new URL(request.url ?? '/', 'http://x').pathname;
  if (path !== METADATA_PREFIX && path !== `${METADATA_PREFIX}${MCP_PATH}`) return false;
  if (!oauth) plain(response, 404, 'not found: this server takes no OAuth tokens (serve.oauth)');
  else if (request.method !== 'GET') plain(response, 405, 'method not allowed', { allow: 'GET' });
  else
    response
      .writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=300' })
      .end(JSON.stringify(oauth.metadata(addressed(request, MCP_PATH))));
  return true;
}

/**
 * A refused token as RFC 6750 says: `WWW-Authenticate: Bearer` with, when factorly takes OAuth
 * tokens, where its metadata is (so an MCP client can find the issuer and log in by itself) and why
 * the token was refused.
 */
export function refuseToken(
  request: IncomingMessage,
  response: ServerResponse,
  refusal: AuthRefusal,
  oauth: OAuthResource | undefined,
): void {
  const params: string[] = [];
  if (oauth) params.push(`resource_metadata="${addressed(request, `${METADATA_PREFIX}${MCP_PATH}`)}"`);
  if (refusal.error) params.push(`error="${refusal.error}"`, `error_description="${quoted(refusal.message)}"`);
  if (refusal.scope) params.push(`scope="${quoted(refusal.scope)}"`);
  const challenge = params.length > 0 ? `Bearer ${params.join(', ')}` : 'Bearer';
  plain(response, refusal.status, refusal.message, refusal.status === 503 ? {} : { 'www-authenticate': challenge });
}

/** A quoted-string's content: printable ASCII, with `"` and `\` left out. */
function quoted(text: string): string {
  return text.replace(/[^\x20-\x7e]|["\\]/g, "'");
}

export function plain(
  response: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...headers }).end(`${message}\n`);
}

export function jsonRpcError(response: ServerResponse, status: number, code: ErrorCode, message: string): void {
  jsonRpcReply(response, status, errorReply(null, code, message));
}

export function jsonRpcReply(response: ServerResponse, status: number, reply: ErrorReply): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(reply));
}
