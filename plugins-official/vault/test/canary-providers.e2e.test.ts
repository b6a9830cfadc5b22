import { describe, expect, it } from 'vitest';
import { canaryProject, providerTools, reflector, wireSafeSecret } from './canary-fixtures.js';
import { runCliAsync } from './cli-run.js';
import { leaksIn, leaksUnder } from '../../../test/helpers/leaks.js';

describe('canary: a vault secret used by a REST tool and an upstream MCP server never shows up', () => {
  it(
    'is redacted from REST responses that reflect it and from an upstream server that prints its env',
    { timeout: 180_000 },
    async () => {
      const secret = wireSafeSecret();
      const { root, env } = canaryProject(providerTools('CANARY', await reflector()));
      const cli = (args: string[]) => runCliAsync(args, root, env);
      // The config already names an upstream server that needs the secret: `vault set` must not start it.
      const set = (await cli(['vault', 'set', 'CANARY', secret])).status;
      expect(set).toBe(0);

      const rest = await cli(['call', 'reflect', '--json']);
      expect(rest.status).toBe(0);
      const reflected = JSON.parse(JSON.parse(rest.stdout).output);
      expect(reflected.headers['x-api-key']).toBe('[REDACTED:CANARY]');
      expect(reflected.headers.authorization).toBe('Bearer [REDACTED:CANARY]');
      expect(reflected.url).toBe('/echo/[REDACTED:CANARY]');

      const upstream = await cli(['call', 'up.get-env']);
      expect(upstream.status).toBe(0);
      expect(upstream.stdout).toContain('"CANARY_ENV": "[REDACTED:CANARY]"');

      const logs = [await cli(['logs', '--json']), await cli(['logs', '--detail']), await cli(['logs', 'export'])];
      for (const [i, run] of [rest, upstream, ...logs].entries())
        expect(leaksIn(run.stdout + run.stderr, secret), `output ${i}`).toEqual([]);
      expect(leaksUnder(root, secret)).toEqual([]);
    },
  );
});
