import type { JsonSchema } from './plugin-config.js';

/** How a blueprint's service authenticates (the reference's `auth_type`). */
export const AUTH_TYPES = ['api_key', 'bearer', 'oauth', 'none'] as const;
export type AuthType = (typeof AUTH_TYPES)[number];

/** A blueprint's name: its file name under `.factorly/blueprints/`, so plain and short. */
export const BLUEPRINT_NAME = '^[a-z0-9][a-z0-9_-]{0,63}$';

/** What a blueprint needs from the config it joins and from the person installing it. */
export interface BlueprintRequires {
  /** Tools that must already exist (another blueprint's, the person's own). */
  tools: string[];
  /** OAuth providers that must exist once it is installed (its own `oauth_providers` count). */
  oauthProviders: string[];
  /** The secret keys its tools and providers use (`requires.vault_keys`): asked for at install. */
  vaultKeys: string[];
}

/** A blueprint's header: the reference's descriptive keys, read. */
export interface BlueprintHeader {
  name: string;
  displayName?: string;
  version?: string;
  description?: string;
  category?: string;
  author?: string;
  homepage?: string;
  license?: string;
  authType?: AuthType;
  /** How to get the credentials (markdown-ish text shown before the keys are asked for). */
  authGuide?: string;
  requires: BlueprintRequires;
}

const TEXT = { type: 'string', minLength: 1, description: 'a text (quote a version such as "1.0")' };
const NAMES = { type: 'array', items: { type: 'string', minLength: 1 }, description: 'a list of names' };

/** The header's schema: the loader's checker names the line of each mistake. */
export const HEADER_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['name'],
  properties: {
    name: { type: 'string', pattern: BLUEPRINT_NAME, description: 'lower-case letters, digits, "-" and "_"' },
    display_name: TEXT,
    version: TEXT,
    description: TEXT,
    category: TEXT,
    author: TEXT,
    homepage: { type: 'string', pattern: '^https?://', description: 'an http(s) URL' },
    license: TEXT,
    auth_type: { enum: [...AUTH_TYPES] },
    auth_guide: TEXT,
    requires: {
      type: 'object',
      additionalProperties: false,
      properties: { tools: NAMES, oauth_providers: NAMES, vault_keys: NAMES },
    },
  },
};

/** The header of checked settings (`HEADER_SCHEMA` passed). */
export function readHeader(settings: Record<string, unknown>): BlueprintHeader {
  const text = (key: string): string | undefined =>
    typeof settings[key] === 'string' ? (settings[key] as string) : undefined;
  const requires = (settings.requires ?? {}) as Record<string, unknown>;
  const names = (key: string): string[] => (Array.isArray(requires[key]) ? (requires[key] as string[]) : []);
  return {
    name: String(settings.name),
    displayName: text('display_name'),
    version: text('version'),
    description: text('description'),
    category: text('category'),
    author: text('author'),
    homepage: text('homepage'),
    license: text('license'),
    authType: text('auth_type') as AuthType | undefined,
    authGuide: text('auth_guide'),
    requires: {
      tools: names('tools'),
      oauthProviders: names('oauth_providers'),
      vaultKeys: names('vault_keys'),
    },
  };
}
