import { join } from 'node:path';
import type { LoadedConfig, ProjectPaths } from 'factorly';
import { toolDefinition } from 'factorly/testing';
import { describe, expect, it } from 'vitest';
import { PinSight, pinnedDefinition } from '../src/definition.js';

const paths = { baseDir: '/p', stateDir: '/p/.factorly' } as ProjectPaths;

function sight(secrets = new Map<string, string>(), configured: string[] = []): PinSight {
  const seen = new PinSight(paths, () => secrets);
  seen.configLoaded({ tools: configured.map((name) => toolDefinition({ name })) } as unknown as LoadedConfig);
  return seen;
}

describe("a tool's pinned definition", () => {
  it('covers what an agent is told of a configured tool: its description and declared parameters, not where values go', () => {
    const tool = toolDefinition({
      name: 'deploy',
      description: 'Deploys.',
      parameters: [
        {
          name: 'env',
          type: 'enum',
          enum: ['dev', 'prod'],
          required: true,
          in: 'query',
          hydrateVaultRefs: ['vault:K'],
        },
      ],
    });
    expect(pinnedDefinition(tool)).toEqual({
      name: 'deploy',
      description: 'Deploys.',
      parameters: [{ name: 'env', type: 'enum', enum: ['dev', 'prod'], required: true }],
    });
  });

  it("covers an upstream tool's declared title, description, schemas and annotations, not its icons or _meta", () => {
    const declared = {
      name: 'remote',
      title: 'Remote',
      description: 'Does it.',
      inputSchema: { type: 'object' },
      outputSchema: { type: 'object' },
      annotations: { readOnlyHint: true },
      icons: [{ src: 'https://example.test/i.png' }],
      _meta: { any: 1 },
    };
    expect(pinnedDefinition(toolDefinition({ name: 'up.remote', declared }))).toEqual({
      name: 'up.remote',
      title: 'Remote',
      description: 'Does it.',
      inputSchema: { type: 'object' },
      outputSchema: { type: 'object' },
      annotations: { readOnlyHint: true },
    });
  });

  it('records a secret an upstream was started with as its reference, in the definition and its digest', () => {
    const leaking = toolDefinition({ name: 'up.x', description: 'token s3cret-4711 inside', expandedFrom: 'up' });
    const seen = sight(new Map([['vault:TOKEN', 's3cret-4711']])).of(leaking);
    expect(seen.definition.description).toBe('token {{vault:TOKEN}} inside');
    expect(JSON.stringify(seen)).not.toContain('s3cret-4711');
    const clean = sight().of(
      toolDefinition({ name: 'up.x', description: 'token {{vault:TOKEN}} inside', expandedFrom: 'up' }),
    );
    expect(seen.digest).toBe(clean.digest);
  });

  it("names where a tool comes from: an upstream entry, the project's config, a blueprint, a plugin", () => {
    const seen = sight(new Map(), ['mine', 'bp']);
    expect(seen.of(toolDefinition({ name: 'up.t', expandedFrom: 'up' }))).toMatchObject({ source: 'up', owned: false });
    expect(
      seen.of(toolDefinition({ name: 'mine', source: { file: '.factorly/factorly.yaml', line: 2 } })),
    ).toMatchObject({
      source: 'config',
      owned: true,
    });
    const blueprint = toolDefinition({
      name: 'bp',
      source: { file: join('.factorly', 'blueprints', 'gh.yaml'), line: 3 },
    });
    expect(seen.of(blueprint)).toMatchObject({ source: 'blueprint:.factorly/blueprints/gh.yaml', owned: false });
    expect(seen.of(toolDefinition({ name: 'factorly.fetch', source: { file: 'built-in', line: 0 } }))).toMatchObject({
      source: 'plugin',
      owned: false,
    });
  });
});
