import { FactorlyError } from '@factorly/error-kit';
import { Authenticator } from './http-auth.js';
import type { NamedToken } from './principal.js';
import { OAuthResource } from './oauth-resource.js';
import type { ServeSettings } from './serve-config.js';

/** Resolves a secret reference (`{{vault:KEY}}`) to its value. */
export type ResolveSecret = (reference: string) => Promise<string>;

/**
 * The authenticator an HTTP `serve` checks requests with, kept in step with the `serve:` block: on
 * start every named token must resolve (else serving stops, naming it); when the block changes
 * while serving, the new one takes over at once (a token removed from it is refused from the next
 * request on), and a token whose secret does not resolve then is left out with a warning.
 */
export class ServeAuth {
  private current: Authenticator;

  private constructor(
    private readonly unnamed: string | undefined,
    private readonly resolve: ResolveSecret,
    private readonly warn: (message: string) => void,
    first: Authenticator,
  ) {
    this.current = first;
  }

  static async start(
    settings: ServeSettings,
    unnamed: string | undefined,
    resolve: ResolveSecret,
    warn: (message: string) => void,
  ): Promise<ServeAuth> {
    const named = await resolveTokens(settings, resolve, (name, why) => {
      throw new FactorlyError('CONFIG_INVALID', `serve.tokens[${name}]: ${why}`);
    });
    return new ServeAuth(unnamed, resolve, warn, authenticator(settings, named, unnamed));
  }

  get(): Authenticator {
    return this.current;
  }

  async reconfigure(settings: ServeSettings): Promise<void> {
    const named = await resolveTokens(settings, this.resolve, (name, why) =>
      this.warn(`serve.tokens[${name}] is refused until it resolves: ${why}`),
    );
    this.current = authenticator(settings, named, this.unnamed);
  }
}

function authenticator(settings: ServeSettings, named: NamedToken[], unnamed: string | undefined): Authenticator {
  const names = new Set((settings.tokens ?? []).map((token) => token.name));
  return new Authenticator(named, unnamed, settings.oauth ? new OAuthResource(settings.oauth, names) : undefined);
}

/** Each named token's value; one that does not resolve, is empty or is another's too goes to `failed`. */
async function resolveTokens(
  settings: ServeSettings,
  resolve: ResolveSecret,
  failed: (name: string, why: string) => void,
): Promise<NamedToken[]> {
  const resolved: NamedToken[] = [];
  for (const { name, token } of settings.tokens ?? []) {
    let value: string;
    try {
      value = await resolve(token);
    } catch (error) {
      failed(name, error instanceof Error ? error.message : String(error));
      continue;
    }
    const twin = resolved.find((other) => other.value === value);
    if (value === '') failed(name, `${token} is empty`);
    else if (twin) failed(name, `its token is also serve.tokens[${twin.name}]'s: each agent needs its own`);
    else resolved.push({ name, value });
  }
  return resolved;
}
