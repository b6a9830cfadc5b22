import {
  AGENT_RULES_SCHEMA,
  checkAgentRules,
  type AgentRulesSpec,
  type ContributedAgent,
} from '@factorly/plugin-shadow/api';
import type { ConfigProblem, JsonSchema } from 'factorly';

/** One named bearer token (`serve.tokens`): the agent it authenticates, and that agent's own limits. */
export interface NamedTokenSpec {
  name: string;
  /** A secret reference (`{{vault:KEY}}`): a token's value is never written into the config or the log. */
  token: string;
  tools?: string[];
  rules?: AgentRulesSpec;
}

/** `serve.oauth`: factorly's HTTP endpoint as an OAuth protected resource. */
export interface OAuthSpec {
  issuer: string;
  audience: string;
  /** The resource identifier told to clients (default: the URL the request was addressed to). */
  resource?: string;
  /** Scopes every token must carry (and clients are told to ask for). */
  scopes?: string[];
}

/** The `serve:` block as written. */
export interface ServeSettings {
  tokens?: NamedTokenSpec[];
  oauth?: OAuthSpec;
}

/** A name an agent is known by: no glob characters, nothing a terminal or a URL would read differently. */
export const AGENT_NAME = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,127}$/;
/** Exactly one secret reference, `{{backend:KEY}}`. */
const WHOLE_REFERENCE = /^\{\{[A-Za-z0-9_][A-Za-z0-9_-]*:[^}|]+\}\}$/;
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

const GLOBS = { type: 'array', items: { type: 'string', minLength: 1 }, description: 'a list of tool names or globs' };

export const SERVE_SCHEMA: JsonSchema = {
  type: 'object',
  description: 'a mapping with tokens and oauth',
  properties: {
    tokens: {
      type: 'array',
      description: 'a list of {name, token, tools?, rules?}',
      items: {
        type: 'object',
        properties: {
          name: { type: 'string', description: 'the agent id the token stands for' },
          token: { type: 'string', description: 'a secret reference such as "{{vault:CURSOR_TOKEN}}"' },
          tools: GLOBS,
          rules: AGENT_RULES_SCHEMA,
        },
        required: ['name', 'token'],
        additionalProperties: false,
      },
    },
    oauth: {
      type: 'object',
      description: 'a mapping with issuer, audience, resource and scopes',
      properties: {
        issuer: { type: 'string' },
        audience: { type: 'string', minLength: 1 },
        resource: { type: 'string' },
        scopes: { type: 'array', items: { type: 'string', pattern: '^[!#-\\[\\]-~]+$' } },
      },
      required: ['issuer', 'audience'],
      additionalProperties: false,
    },
  },
  additionalProperties: false,
};

/** The checks a schema cannot make: names unique and plain, tokens given as secret references, the issuer's URL. */
export function checkServe(value: unknown, problem: ConfigProblem): void {
  const settings = value as ServeSettings;
  const seen = new Set<string>();
  for (const [index, spec] of (settings.tokens ?? []).entries()) {
    if (!AGENT_NAME.test(spec.name))
      problem(`"${spec.name}" is not an agent name (letters, digits, ".", "_", "@", "-"; no globs)`, [
        'tokens',
        index,
        'name',
      ]);
    else if (seen.has(spec.name)) problem(`"${spec.name}" names two tokens`, ['tokens', index, 'name']);
    seen.add(spec.name);
    if (!WHOLE_REFERENCE.test(spec.token))
      problem('must be a secret reference such as "{{vault:KEY}}", not the token itself', ['tokens', index, 'token']);
    if (spec.rules)
      checkAgentRules(spec.rules, (message, path = []) => problem(message, ['tokens', index, 'rules', ...path]));
  }
  if (settings.oauth) {
    const why = urlProblem(settings.oauth.issuer);
    if (why) problem(why, ['oauth', 'issuer']);
    if (settings.oauth.resource !== undefined) {
      const resourceWhy = urlProblem(settings.oauth.resource);
      if (resourceWhy) problem(resourceWhy, ['oauth', 'resource']);
    }
  }
}

/** HTTPS, or plain HTTP to this machine only (a local authorization server, a test). */
export function urlProblem(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `"${text}" is not a URL`;
  }
  if (url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname))) return undefined;
  return `"${text}" must be an https URL (plain http only on loopback)`;
}

/** The block as handed to the plugin: undefined when the config has none. */
export function serveSettingsOf(block: unknown): ServeSettings {
  return (block ?? {}) as ServeSettings;
}

/** Each named token's own tools and rules, for the shadow rules to bind its agent with. */
export function agentsOf(settings: ServeSettings): ContributedAgent[] {
  return (settings.tokens ?? []).map(({ name, tools, rules }) => ({
    agent: name,
    where: `serve.tokens[${name}]`,
    ...(tools ? { tools } : {}),
    ...(rules ? { rules } : {}),
  }));
}
