import { FactorlyError } from '@factorly/error-kit';
import type { OAuthClient, OAuthLoginOptions, OAuthProviderStatus } from 'factorly';
import { ProviderLogins, type LoginParts } from './provider-logins.js';
import { readProviders, type OAuthProviderSpec } from './providers.js';
import { UpstreamLogins } from './upstream-logins.js';
import type { UpstreamDeclaration } from './upstream-spec.js';

/**
 * OAuth 2.0 for every tool source: the providers of `oauth_providers` (REST tools) and the upstream
 * MCP servers reached over HTTP, with one token store and one refresh lock per login across processes.
 */
export class PluginOAuthClient implements OAuthClient {
  private providers = new Map<string, OAuthProviderSpec>();
  private parts: LoginParts | undefined;
  private readonly providerLogins = new ProviderLogins(() => this.attached());
  readonly upstreams = new UpstreamLogins(() => this.attached());

  attach(parts: LoginParts): void {
    this.parts = parts;
  }

  configure(block: unknown): void {
    this.providers = readProviders(block);
  }

  /** The config's HTTP upstreams, declared by the provider of `type: mcp` after `configure` ran. */
  declareUpstreams(upstreams: readonly UpstreamDeclaration[]): void {
    this.upstreams.declare(upstreams, [...this.providers.keys()]);
  }

  names(): string[] {
    return [...[...this.providers.keys()].sort(), ...this.upstreams.names()];
  }

  status(name: string): Promise<OAuthProviderStatus> {
    const provider = this.providers.get(name);
    return provider ? this.providerLogins.status(provider) : this.upstream(name).status(name);
  }

  login(name: string, options: OAuthLoginOptions): Promise<OAuthProviderStatus> {
    const provider = this.providers.get(name);
    return provider ? this.providerLogins.login(provider, options) : this.upstream(name).login(name, options);
  }

  refresh(name: string): Promise<OAuthProviderStatus> {
    const provider = this.providers.get(name);
    return provider ? this.providerLogins.refresh(provider) : this.upstream(name).refresh(name);
  }

  async logout(name: string): Promise<boolean> {
    const provider = this.providers.get(name);
    return provider ? this.attached().store.remove(provider) : this.upstream(name).logout(name);
  }

  accessToken(name: string, options: { refresh?: boolean } = {}): Promise<string> {
    const provider = this.providers.get(name);
    return provider
      ? this.providerLogins.accessToken(provider, options)
      : this.upstream(name).accessToken(name, options);
  }

  private upstream(name: string): UpstreamLogins {
    if (this.upstreams.has(name)) return this.upstreams;
    const known = this.names().join(', ') || 'none configured';
    throw new FactorlyError(
      'USAGE',
      `no OAuth provider "${name}" in oauth_providers, nor an upstream MCP server of that name with a url in tools (known: ${known})`,
    );
  }

  private attached(): LoginParts {
    if (!this.parts) throw new FactorlyError('LIFECYCLE', 'the oauth plugin is used before its init ran');
    return this.parts;
  }
}
