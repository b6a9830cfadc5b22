import { startTestKernel } from 'factorly/testing';
import { describe, expect, it } from 'vitest';

const OFFICIAL = ['provider-cli', 'vault', 'shadow', 'interface-mcp'];

/** What loading (and, when it loads, serving) the config says. */
async function outcome(yaml: string): Promise<string> {
  let started;
  try {
    started = await startTestKernel(yaml, [], { official: OFFICIAL });
  } catch (error) {
    return String(error);
  }
  try {
    const stop = new AbortController();
    const serving = started.kernel.interfaces
      .get('mcp')!
      .serve({ transport: 'http', host: '127.0.0.1', port: 0, version: '1' }, stop.signal);
    stop.abort();
    await serving;
    return 'served';
  } catch (error) {
    return String(error);
  } finally {
    await started.stop();
  }
}

describe('the serve: block', () => {
  it('refuses a token written into the config, a name that is a glob or taken twice, and an issuer over plain http', async () => {
    const said = await outcome(`serve:
  tokens:
    - {name: cursor, token: "c-1234567890"}
    - {name: "ci-*", token: "{{env:A}}"}
    - {name: codex, token: "{{env:B}}", rules: {rate_limit: 5/minn}}
    - {name: codex, token: "{{env:C}}"}
  oauth: {issuer: "http://login.example.com", audience: mcp}
tools: {}
`);
    expect(said).toContain(
      'invalid serve.tokens[0].token: must be a secret reference such as "{{vault:KEY}}", not the token itself (.factorly/factorly.yaml:3)',
    );
    expect(said).toContain('invalid serve.tokens[1].name: "ci-*" is not an agent name');
    expect(said).toContain('invalid serve.tokens[2].rules.rate_limit: unknown unit "minn"');
    expect(said).toContain('invalid serve.tokens[3].name: "codex" names two tokens (.factorly/factorly.yaml:6)');
    expect(said).toContain(
      'invalid serve.oauth.issuer: "http://login.example.com" must be an https URL (plain http only on loopback)',
    );
    const shape = await outcome(
      'serve: {tokens: [{name: x}], oauth: {issuer: "https://a.example"}, token: y}\ntools: {}\n',
    );
    expect(shape).toContain('unknown key "serve.token"; did you mean "tokens"?');
    expect(shape).toContain('invalid serve.tokens[0]: is missing "token"');
    expect(shape).toContain('invalid serve.oauth: is missing "audience"');
  });

  it('stops serving when a named token does not resolve, naming it', async () => {
    delete process.env.SERVE_CONFIG_TEST_MISSING;
    expect(
      await outcome('serve:\n  tokens: [{name: ci, token: "{{env:SERVE_CONFIG_TEST_MISSING}}"}]\ntools: {}\n'),
    ).toMatch(/serve\.tokens\[ci\]: .*SERVE_CONFIG_TEST_MISSING/);
  });
});
