import type { OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens as SdkTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { FactorlyError } from '@factorly/error-kit';
import { isLoopbackHttp } from './authorization-server.js';
import type { LoginParts } from './provider-logins.js';
import { bundleOf, type TokenBundle } from './token-bundle.js';
import type { UpstreamSpec } from './upstream-spec.js';

/**
 * What an upstream's login keeps beside its tokens, as one secret (`<token_key>_client`): the client
 * the authorization server registered (RFC 7591; its secret, if any, is a secret too) and where
 * discovery found that server (RFC 9728, then RFC 8414 / OIDC), so a refresh needs no discovery.
 */
export interface UpstreamRecord {
  client?: OAuthClientInformationMixed;
  discovery?: OAuthDiscoveryState;
}

export async function readRecord(parts: LoginParts, spec: UpstreamSpec): Promise<UpstreamRecord> {
  return ((await parts.store.readRecord(spec, spec.clientKey)) ?? {}) as UpstreamRecord;
}

export async function writeRecord(parts: LoginParts, spec: UpstreamSpec, record: UpstreamRecord): Promise<void> {
  await parts.store.writeRecord(spec, spec.clientKey, { ...record });
}

/** What factorly registers as (RFC 7591): a native public client with a loopback redirect, PKCE-only. */
export function clientMetadataOf(spec: UpstreamSpec, redirectUrl: string): OAuthClientMetadata {
  return {
    client_name: 'factorly',
    redirect_uris: [redirectUrl],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    ...(spec.scopes.length > 0 ? { scope: spec.scopes.join(' ') } : {}),
  };
}

/** The client the entry configures (`oauth.client_id`, secret references resolved), if any. */
export async function configuredClient(
  parts: LoginParts,
  spec: UpstreamSpec,
): Promise<OAuthClientInformationMixed | undefined> {
  if (spec.clientId === undefined) return undefined;
  const secret = spec.clientSecret === undefined ? undefined : await parts.secrets.resolve(spec.clientSecret);
  return { client_id: await parts.secrets.resolve(spec.clientId), ...(secret ? { client_secret: secret } : {}) };
}

/** The bundle stored for the SDK's tokens, stamped with the authorization server that issued them. */
export function bundleOfSdk(tokens: SdkTokens, previous?: TokenBundle): TokenBundle {
  const bundle = bundleOf(tokens as Parameters<typeof bundleOf>[0], previous);
  const issuer = tokens.issuer ?? previous?.issuer;
  return issuer === undefined ? bundle : { ...bundle, issuer };
}

/**
 * Tokens go only to an authorization server over HTTPS, or plain HTTP on this machine: discovery
 * that leads anywhere else stops the login before a token request is made.
 */
export function checkedDiscovery(spec: UpstreamSpec, state: OAuthDiscoveryState): OAuthDiscoveryState {
  const metadata = state.authorizationServerMetadata;
  const urls = [state.authorizationServerUrl, metadata?.authorization_endpoint, metadata?.token_endpoint];
  for (const url of urls)
    if (url !== undefined && !url.startsWith('https://') && !isLoopbackHttp(url))
      throw new FactorlyError(
        'AUTH_FAILED',
        `upstream MCP server "${spec.name}": its authorization server ${url} is not HTTPS (plain HTTP only on this machine)`,
      );
  return state;
}
