import { cpSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { Params } from '../../src/events/catalog.js';
import { installBlueprint } from '../../src/cli/blueprints/install.js';
import { planBlueprint } from '../../src/cli/blueprints/plan.js';
import { importOpenApi } from '../../src/cli/openapi/import.js';
import { ApiFake } from '../helpers/api-fake.js';
import { blueprintKernel } from '../helpers/blueprint-kernel.js';
import { REPO, tempProject } from '../helpers/project.js';

const FIXTURES = join(REPO, 'test', 'fixtures', 'openapi');
const cwd = REPO;
type Tools = Record<string, Record<string, unknown> & { parameters?: Record<string, unknown>[] }>;
const toolsOf = (yaml: string): Tools => (parse(yaml) as { tools: Tools }).tools;

describe('OpenAPI import: Petstore', () => {
  it('turns OpenAPI 3 Petstore into typed rest tools with its server as base_url', async () => {
    const made = await importOpenApi({ spec: join(FIXTURES, 'petstore.yaml') }, {}, { cwd });
    expect(made.name).toBe('swagger-petstore');
    expect(made.baseUrl).toBe('http://petstore.swagger.io/v1');
    expect(made.operations.map((op) => op.tool)).toEqual([
      'swagger-petstore.listPets',
      'swagger-petstore.createPets',
      'swagger-petstore.showPetById',
    ]);
    const tools = toolsOf(made.yaml);
    expect(tools['swagger-petstore.listPets']).toMatchObject({
      type: 'rest',
      description: 'List all pets',
      base_url: 'http://petstore.swagger.io/v1',
      method: 'GET',
      path: '/pets',
      parameters: [
        { name: 'limit', type: 'integer', in: 'query', description: 'How many items to return at one time (max 100)' },
      ],
    });
    expect(tools['swagger-petstore.showPetById']).toMatchObject({
      path: '/pets/{{petId}}',
      parameters: [{ name: 'petId', type: 'string', in: 'path', required: true }],
    });
    // A write asks before each call.
    expect(tools['swagger-petstore.createPets'].shadow).toEqual({ confirm: true });
    expect(tools['swagger-petstore.listPets'].shadow).toBeUndefined();
  });

  it('reads Swagger 2.0: host and basePath, body fields, operationIds with spaces made names', async () => {
    const made = await importOpenApi(
      { spec: join(FIXTURES, 'petstore-expanded.swagger.yaml') },
      { prefix: 'pets' },
      { cwd },
    );
    expect(made.baseUrl).toBe('http://petstore.swagger.io/api');
    expect(made.operations.map((op) => op.tool)).toEqual([
      'pets.findPets',
      'pets.addPet',
      'pets.find_pet_by_id',
      'pets.deletePet',
    ]);
    const tools = toolsOf(made.yaml);
    expect(tools['pets.findPets'].parameters).toEqual([
      { name: 'tags', type: 'json', description: 'tags to filter by', in: 'query' },
      { name: 'limit', type: 'integer', description: 'maximum number of results to return', in: 'query' },
    ]);
    expect(tools['pets.addPet'].parameters).toEqual([
      { name: 'name', type: 'string', required: true, in: 'body' },
      { name: 'tag', type: 'string', in: 'body' },
    ]);
    expect(tools['pets.find_pet_by_id']).toMatchObject({ path: '/pets/{{id}}', method: 'GET' });
  });
});

describe('OpenAPI import: names, params and security', () => {
  it('maps servers, refs in other files, params, collisions and each security scheme', async () => {
    const made = await importOpenApi({ spec: join(FIXTURES, 'refs', 'split', 'api.yaml') }, {}, { cwd });
    expect(made.name).toBe('shop-api');
    expect(made.baseUrl).toBe('https://eu.shop.example.com/v2');
    expect(made.collisions).toEqual([
      'orders/update and orders.update both make "shop-api.orders.update": orders/update is "shop-api.orders.update_2"',
    ]);
    expect(made.skipped).toEqual(['orders/list: cookie parameter "session"']);
    const tools = toolsOf(made.yaml);
    expect(Object.keys(tools)).toEqual([
      'shop-api.orders.list',
      'shop-api.orders.create',
      'shop-api.orders.update',
      'shop-api.orders.update_2',
      'shop-api.get.reports',
      'shop-api.me',
    ]);
    expect(tools['shop-api.orders.list']).toMatchObject({
      auth: { type: 'bearer', token: '{{vault:SHOP_API_TOKEN}}' },
      parameters: [
        {
          name: 'status',
          type: 'enum',
          enum: ['open', 'shipped'],
          in: 'query',
          description: 'Only orders in this state',
        },
        { name: 'page_size', type: 'integer', default: 20, min: 1, max: 100, in: 'query', api_name: 'page[size]' },
        { name: 'X-Request-Id', type: 'string', in: 'header' },
      ],
    });
    // A body from a $ref in another file of the folder; readOnly fields are not sent.
    expect(tools['shop-api.orders.create'].parameters).toEqual([
      { name: 'item', type: 'string', description: 'What is ordered', required: true, in: 'body' },
      { name: 'quantity', type: 'integer', min: 1, required: true, in: 'body' },
      { name: 'note', type: 'string', in: 'body' },
      { name: 'gift', type: 'boolean', default: false, in: 'body' },
      { name: 'lines', type: 'json', in: 'body' },
    ]);
    // The path's own parameter and a body field of the same name: the body's becomes body_id.
    expect(tools['shop-api.orders.update'].path).toBe('/orders/{{id}}');
    expect(tools['shop-api.orders.update_2']).not.toHaveProperty('auth');
    expect(tools['shop-api.get.reports'].path).toBe('/reports?api_key={{vault:SHOP_API_API_KEY}}');
    expect(tools['shop-api.me'].auth).toEqual({ type: 'oauth', provider: 'shop-api' });
    const blueprint = parse(made.yaml) as Record<string, unknown>;
    expect(blueprint).toMatchObject({
      name: 'shop-api',
      display_name: 'Shop API',
      version: '2.1',
      auth_type: 'bearer',
      requires: {
        vault_keys: ['SHOP_API_TOKEN', 'SHOP_API_API_KEY', 'SHOP_API_CLIENT_ID', 'SHOP_API_CLIENT_SECRET'],
      },
      oauth_providers: {
        'shop-api': {
          client_id: '{{vault:SHOP_API_CLIENT_ID}}',
          client_secret: '{{vault:SHOP_API_CLIENT_SECRET}}',
          auth_url: 'https://login.shop.example.com/authorize',
          token_url: 'https://login.shop.example.com/token',
          scopes: ['profile'],
        },
      },
    });
  });

  it('picks operations with --select and names one it does not know', async () => {
    const spec = join(FIXTURES, 'refs', 'split', 'api.yaml');
    const made = await importOpenApi({ spec }, { select: ['orders/list', 'GET /reports'] }, { cwd });
    expect(Object.keys(toolsOf(made.yaml))).toEqual(['shop-api.orders.list', 'shop-api.get.reports']);
    await expect(importOpenApi({ spec }, { select: ['orders/lst'] }, { cwd })).rejects.toThrow(
      '--select "orders/lst" names no operation of the spec; did you mean "orders/list"?',
    );
  });
});

describe('OpenAPI import: $refs stay in the spec folder', () => {
  it('refuses a $ref out of the folder, a symlink out of it, a broken one, and a loopback URL', async () => {
    await expect(importOpenApi({ spec: join(FIXTURES, 'refs', 'escape.yaml') }, {}, { cwd })).rejects.toMatchObject({
      code: 'SPEC_INVALID',
      message: expect.stringMatching(
        /^test\/fixtures\/openapi\/refs\/escape\.yaml: \$ref to "\/etc\/passwd" refused: it is outside the spec's folder/,
      ),
    });
    await expect(importOpenApi({ spec: join(FIXTURES, 'refs', 'broken.yaml') }, {}, { cwd })).rejects.toMatchObject({
      code: 'SPEC_INVALID',
      message: expect.stringContaining('Missing $ref pointer "#/components/schemas/Order"'),
    });
    const root = tempProject();
    cpSync(join(FIXTURES, 'refs', 'split'), join(root, 'spec'), { recursive: true });
    mkdirSync(join(root, 'outside'));
    writeFileSync(join(root, 'outside', 'secret.yaml'), 'Order: {type: object}\n');
    symlinkSync(join(root, 'outside', 'secret.yaml'), join(root, 'spec', 'schemas.yaml'.replace('schemas', 'linked')));
    writeFileSync(
      join(root, 'spec', 'api.yaml'),
      readFileSync(join(root, 'spec', 'api.yaml'), 'utf8').replaceAll('./schemas.yaml', './linked.yaml'),
    );
    await expect(importOpenApi({ spec: join(root, 'spec', 'api.yaml') }, {}, { cwd: root })).rejects.toThrow(
      /refused: it is outside the spec's folder/,
    );
    const remote = readFileSync(join(FIXTURES, 'refs', 'remote.yaml'), 'utf8').replace('REMOTE', 'http://127.0.0.1:9');
    await expect(importOpenApi({ text: remote, label: 'remote.yaml' }, {}, { cwd })).rejects.toThrow(
      'remote.yaml: URL blocked by safety guard: localhost access denied (127.0.0.1; use shadow.allow_urls to allow it)',
    );
    // A pasted spec has no folder: a file $ref in it is refused.
    await expect(
      importOpenApi(
        { text: readFileSync(join(FIXTURES, 'refs', 'split', 'api.yaml'), 'utf8'), label: 'pasted' },
        {},
        { cwd },
      ),
    ).rejects.toThrow(/^pasted: \$ref to ".*schemas\.yaml" refused: pasted may refer to no local file$/);
  });
});

describe('OpenAPI import: a large real spec (GitHub, 600+ operations)', () => {
  let fake: ApiFake;
  beforeAll(async () => {
    fake = await new ApiFake({
      github: {
        spec: await ApiFake.spec(join(FIXTURES, 'github-api.json')),
        answer: (request) => ({ status: 200, body: { operation: request.operation, ok: true } }),
      },
    }).start();
  });
  afterAll(() => fake.stop());

  it('imports every operation under valid names, installs, lists and calls them against a server built from the spec', async () => {
    const root = tempProject();
    const { kernel, asked } = await blueprintKernel(root);
    try {
      const made = await importOpenApi(
        { spec: join(FIXTURES, 'github-api.json') },
        { prefix: 'github', baseUrl: `${fake.base}/github` },
        { cwd },
      );
      expect(made.operations.length).toBeGreaterThanOrEqual(600);
      expect(made.collisions).toEqual([]);
      const names = made.operations.map((op) => op.tool);
      expect(names).toContain('github.repos.get');
      expect(names).toContain('github.issues.create');
      expect(names).toContain('github.search.issues-and-pull-requests');
      for (const name of names) expect(name).toMatch(/^github\.[A-Za-z0-9_.-]+$/);
      const plan = await planBlueprint(kernel, { text: made.yaml, label: 'openapi:github-api.json' }, { cwd });
      expect(plan.problems).toEqual([]);
      await installBlueprint(kernel, plan);
      await kernel.reload();
      const served = kernel.registry.visible().filter((tool) => tool.name.startsWith('github.'));
      expect(served).toHaveLength(made.operations.length);
      expect(kernel.registry.get('github.issues.list-for-repo')!.parameters.map((p) => [p.name, p.type])).toEqual(
        expect.arrayContaining([
          ['owner', 'string'],
          ['state', 'enum'],
          ['per_page', 'integer'],
        ]),
      );
      const calls: { tool: string; params: Params }[] = [
        { tool: 'github.issues.list-for-repo', params: { owner: 'octo', repo: 'app', state: 'open', per_page: 5 } },
        { tool: 'github.search.issues-and-pull-requests', params: { q: 'is:open label:bug', per_page: 3 } },
        { tool: 'github.issues.create', params: { owner: 'octo', repo: 'app', title: 'Broken', labels: ['bug'] } },
        { tool: 'github.repos.get', params: { owner: 'octo', repo: 'app' } },
      ];
      for (const call of calls) {
        const outcome = await kernel.pipeline.call({ ...call, iface: 'cli' });
        expect(outcome.error ?? '').toBe('');
        expect(JSON.parse(outcome.output)).toMatchObject({ ok: true });
      }
      expect(fake.violations).toEqual([]);
      expect(fake.of('github').map((r) => r.operation)).toEqual([
        'issues/list-for-repo',
        'search/issues-and-pull-requests',
        'issues/create',
        'repos/get',
      ]);
      expect(fake.of('github')[2].body).toEqual({ title: 'Broken', labels: ['bug'] });
      expect(asked).toEqual(['github.issues.create']);
    } finally {
      await kernel.stop();
    }
  });
});
