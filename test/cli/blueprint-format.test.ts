import { describe, expect, it } from 'vitest';
import { readBlueprint } from '../../src/cli/blueprints/format.js';

const KNOWN = ['tools', 'tools_dir', 'log', 'oauth_providers', 'vault_backends', 'defaults'];
const HEADER = `name: acme
version: "1.0"
auth_type: bearer
requires:
  vault_keys: [ACME_TOKEN]
`;
const REST = `  acme.list:
    type: rest
    base_url: https://api.acme.test
    method: GET
    path: /things
    auth: { type: bearer, token: "{{vault:ACME_TOKEN}}" }
`;

function problems(text: string): string[] {
  try {
    readBlueprint(text, 'acme.yaml', KNOWN);
  } catch (error) {
    return (error as { message: string }).message.split('\n');
  }
  return [];
}

describe('blueprint format', () => {
  it('reads a header with rest tools, mcp servers by url and oauth providers', () => {
    const text = `${HEADER}display_name: Acme
oauth_providers:
  acme: { client_id: "{{vault:ACME_TOKEN}}", auth_url: https://id.acme.test/a, token_url: https://id.acme.test/t }
tools:
${REST}  acme.mcp: { type: mcp, url: https://mcp.acme.test/mcp }
  acme.me:
    type: rest
    base_url: https://api.acme.test
    method: GET
    auth: { type: oauth, provider: acme }
`;
    const blueprint = readBlueprint(text, 'acme.yaml', KNOWN);
    expect(blueprint.header).toMatchObject({
      name: 'acme',
      displayName: 'Acme',
      version: '1.0',
      authType: 'bearer',
      requires: { vaultKeys: ['ACME_TOKEN'], tools: [], oauthProviders: [] },
    });
    expect(blueprint.tools.map((tool) => tool.name)).toEqual(['acme.list', 'acme.mcp', 'acme.me']);
    expect(Object.keys(blueprint.oauthProviders)).toEqual(['acme']);
  });

  it('refuses what would run on this machine or reach past the blueprint, naming file and line', () => {
    const text = `${HEADER}vault_backends:
  op: { get: { command: op } }
tools:
${REST}  acme.shell: { type: cli, command: sh, args: [-c, "{{cmd}}"] }
  factorly.fetch: { type: rest, base_url: https://x.test, method: GET }
  acme.local: { type: mcp, command: npx, args: [server] }
  acme.env:
    type: rest
    base_url: https://api.acme.test
    method: GET
    headers: { X-Key: "{{env:AWS_SECRET_ACCESS_KEY}}", X-Other: "{{vault:OTHER}}" }
  acme.script: { type: code, code: "async function run() {}" }
`;
    expect(problems(text)).toEqual([
      'blueprint: "vault_backends" is not allowed in a blueprint (only tools, oauth_providers and the header) (acme.yaml:6)',
      'blueprint: tool "acme.shell" has type "cli": a blueprint brings only rest and mcp tools (nothing that runs on this machine) (acme.yaml:15)',
      'blueprint: tool "factorly.fetch" would override a built-in ("factorly.*" names are factorly\'s own) (acme.yaml:16)',
      'blueprint: tool "acme.local" is an mcp server started on this machine ("command"); a blueprint names remote servers by url (acme.yaml:17)',
      'blueprint: tool "acme.script" has type "code": a blueprint brings only rest and mcp tools (nothing that runs on this machine) (acme.yaml:23)',
      'blueprint: tool "acme.env" (acme.yaml:18) uses {{env:AWS_SECRET_ACCESS_KEY}}: a blueprint\'s secrets come from the vault or an OAuth provider (vault, oauth)',
      'blueprint: tool "acme.env" (acme.yaml:18) uses {{vault:OTHER}}, which requires.vault_keys does not list',
    ]);
  });

  it('checks the header: a name, the auth types, requires, texts', () => {
    expect(problems('tools: {}\n')).toEqual(['blueprint: is missing "name" (acme.yaml:1)']);
    expect(
      problems(`name: Acme Corp
version: 1.0
auth_type: token
requires: { vault_keys: [A], services: [x] }
tools: {}
`),
    ).toEqual([
      'blueprint: invalid name: "Acme Corp" is not lower-case letters, digits, "-" and "_" (acme.yaml:1)',
      'blueprint: invalid version: expected a text (quote a version such as "1.0"), got 1 (acme.yaml:2)',
      'blueprint: invalid auth_type: "token" is not one of api_key, bearer, oauth, none (acme.yaml:3)',
      'blueprint: unknown key "requires.services" (acme.yaml:4)',
    ]);
    expect(problems('name: acme\nhomepage: ftp://x\ntolls: {}\n')).toEqual([
      'blueprint: unknown top-level key "tolls"; did you mean "tools"? (acme.yaml:3)',
    ]);
    expect(problems('name: acme\ntools:\n  a: {type: rest\n')[0]).toMatch(/^blueprint: acme\.yaml:4:1: /);
  });

  it('refuses an OAuth provider a tool names that it neither brings nor requires', () => {
    const text = `name: acme
tools:
  acme.me: { type: rest, base_url: https://a.test, method: GET, auth: { type: oauth, provider: google } }
`;
    expect(problems(text)).toEqual([
      'blueprint: tool "acme.me" (acme.yaml:3) uses OAuth provider "google", which it neither brings nor requires',
    ]);
    expect(problems(text.replace('name: acme', 'name: acme\nrequires: { oauth_providers: [google] }'))).toEqual([]);
  });
});
