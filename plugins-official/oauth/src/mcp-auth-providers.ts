import { createHash } from 'node:crypto';
import type { OAuthClientProvider, OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens as SdkTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { FactorlyError, messageOf } from '@factorly/error-kit';
import { loginRequired } from './login-errors.js';
import type { LoginParts } from './provider-logins.js';
import { expiresSoon, type TokenBundle } from './token-bundle.js';
import {
  bundleOfSdk,
  checkedDiscovery,
  clientMetadataOf,
  configuredClient,
  readRecord,
  writeRecord,
  type UpstreamRecord,
} from './upstream-record.js';
import type { UpstreamSpec } from './upstream-spec.js';

/** What the serving provider needs besides the store: a refresh under the cross-process lock. */
export interface ServingParts extends LoginParts {
  renew(spec: UpstreamSpec, refused: string): Promise<TokenBundle>;
}

/** The error `redirectToAuthorization` throws once it renewed a refused token: the request may be sent again. */
export const TOKEN_RENEWED = 'tokenRenewed';

/**
 * The MCP SDK's `OAuthClientProvider` an upstream's transport uses while factorly serves: the tokens
 * of the store (renewed under the lock before they expire; the refresh token never reaches the
 * SDK, whose own refresh would race other processes), the registered or configured client, and the
 * discovery the login saved. The store is read only once the server has asked for a login (a 401),
 * so a server that needs none never unlocks the vault. It never starts a login: when the server
 * asks, the stored token is sent once more if it was not sent yet, or renewed once if it was
 * refused (each time the request is sent again); otherwise the error says what to run.
 */
export class ServingAuthProvider implements OAuthClientProvider {
  /** The token last put on a request, and the one the server's latest 401 refused. */
  private handed?: string;
  private refused?: string;
  /** The server asked for a login once: from now on every request carries the stored token. */
  private asked = false;
  private discovery?: OAuthDiscoveryState;

  constructor(
    private readonly spec: UpstreamSpec,
    private readonly parts: ServingParts,
  ) {}

  get redirectUrl(): string {
    return `http://127.0.0.1:${this.spec.redirectPort}/callback`;
  }

  get clientMetadata(): OAuthClientMetadata {
    return clientMetadataOf(this.spec, this.redirectUrl);
  }

  async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    return (await configuredClient(this.parts, this.spec)) ?? (await readRecord(this.parts, this.spec)).client;
  }

  /** Unreadable (a locked vault): no token, and the server's 401 then says why. */
  async tokens(): Promise<SdkTokens | undefined> {
    if (!this.asked) return undefined;
    const stored = await this.parts.store.read(this.spec).catch(() => undefined);
    if (!stored || !('bundle' in stored)) return undefined;
    let { bundle } = stored;
    if (expiresSoon(bundle) && bundle.refresh_token)
      bundle = await this.parts.renew(this.spec, bundle.access_token).catch(() => bundle);
    this.handed = bundle.access_token;
    return { access_token: bundle.access_token, token_type: bundle.token_type, ...issuerOf(bundle) };
  }

  async saveTokens(tokens: SdkTokens): Promise<void> {
    await this.parts.store.write(this.spec, bundleOfSdk(tokens));
  }

  /** The SDK's answer to a 401 begins here: what was handed before it is what the server refused. */
  async discoveryState(): Promise<OAuthDiscoveryState | undefined> {
    this.refused = this.handed;
    this.handed = undefined;
    this.asked = true;
    const stored = await this.parts.store.read(this.spec).catch((error: unknown) => {
      throw loginRequired(this.spec, `its login could not be read (${messageOf(error)})`);
    });
    if ('missing' in stored) throw loginRequired(this.spec, 'not logged in');
    return this.discovery ?? (await readRecord(this.parts, this.spec)).discovery;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovery = state;
  }

  async redirectToAuthorization(): Promise<void> {
    const refused = this.refused;
    this.refused = undefined;
    // The stored token was not on the refused request (the first 401 of this process): send it.
    if (refused === undefined) throw this.sendAgain('asks for the stored login');
    const renewed = await this.parts.renew(this.spec, refused).catch(() => undefined);
    if (renewed && renewed.access_token !== refused) throw this.sendAgain('refused its token; renewed');
    throw loginRequired(this.spec, 'the server refused the stored login');
  }

  saveCodeVerifier(): void {
    // A serving transport never starts a login, so it has no verifier to keep.
  }

  codeVerifier(): string {
    throw loginRequired(this.spec, 'the server asks for a login');
  }

  /** Changes whenever another login is stored (compared while the server waits for one; never shown). */
  async loginMark(): Promise<string | undefined> {
    const stored = await this.parts.store.read(this.spec);
    return 'bundle' in stored ? createHash('sha256').update(stored.bundle.access_token).digest('hex') : undefined;
  }

  private sendAgain(why: string): FactorlyError {
    return new FactorlyError('AUTH_FAILED', `upstream MCP server "${this.spec.name}" ${why}`, {
      data: { [TOKEN_RENEWED]: true },
    });
  }
}

/**
 * The provider `factorly auth login <upstream>` drives `auth()` with: the loopback callback as the
 * redirect, its `state`, PKCE verifier and discovery kept for the login; a client registered when
 * none is configured or stored for this redirect (and kept); the tokens stored at the end.
 */
export class LoginAuthProvider implements OAuthClientProvider {
  private verifier?: string;
  private discovery?: OAuthDiscoveryState;
  /** The registered client as this login knows it (null: the server refused it, register again). */
  private registered?: OAuthClientInformationMixed | null;

  constructor(
    private readonly spec: UpstreamSpec,
    private readonly parts: LoginParts,
    readonly redirectUrl: string,
    private readonly loginState: string,
    private readonly open: (url: URL) => Promise<void>,
  ) {}

  get clientMetadata(): OAuthClientMetadata {
    return clientMetadataOf(this.spec, this.redirectUrl);
  }

  state(): string {
    return this.loginState;
  }

  async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    const configured = await configuredClient(this.parts, this.spec);
    if (configured) return configured;
    if (this.registered === undefined) {
      const stored = (await readRecord(this.parts, this.spec)).client;
      // A client registered for another callback port cannot receive this login's redirect.
      const fits = (stored as { redirect_uris?: string[] } | undefined)?.redirect_uris?.includes(this.redirectUrl);
      this.registered = fits ? stored : null;
    }
    return this.registered ?? undefined;
  }

  async saveClientInformation(client: OAuthClientInformationMixed): Promise<void> {
    if (this.spec.clientId !== undefined) return;
    this.registered = client;
    await this.saveRecord();
  }

  tokens(): undefined {
    return undefined;
  }

  async saveTokens(tokens: SdkTokens): Promise<void> {
    await this.parts.store.write(this.spec, bundleOfSdk(tokens));
    await this.saveRecord();
  }

  async redirectToAuthorization(url: URL): Promise<void> {
    await this.open(url);
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    if (this.verifier === undefined) throw new FactorlyError('AUTH_FAILED', 'the login has no PKCE verifier');
    return this.verifier;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.discovery;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovery = checkedDiscovery(this.spec, state);
  }

  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    if (scope === 'all' || scope === 'client') this.registered = null;
    if (scope === 'all' || scope === 'discovery') this.discovery = undefined;
    if (scope === 'all' || scope === 'verifier') this.verifier = undefined;
  }

  private async saveRecord(): Promise<void> {
    const record: UpstreamRecord = {
      ...(this.registered ? { client: this.registered } : {}),
      ...(this.discovery ? { discovery: this.discovery } : {}),
    };
    await writeRecord(this.parts, this.spec, record);
  }
}

function issuerOf(bundle: TokenBundle): { issuer?: string } {
  return bundle.issuer === undefined ? {} : { issuer: bundle.issuer };
}
