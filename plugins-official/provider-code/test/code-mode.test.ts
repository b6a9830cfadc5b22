import type { JsonValue, ToolDefinition } from 'factorly';
import { describe as group, expect, it } from 'vitest';
import { describe, search } from '../src/search.js';
import { callTool, startCodeKernel } from './code-kernel.js';

function tool(name: string, description: string, parameters: ToolDefinition['parameters'] = []): ToolDefinition {
  return { name, type: 'cli', description, hidden: false, parameters, spec: {}, source: { file: 'f.yaml', line: 1 } };
}

const CATALOG: ToolDefinition[] = [
  ...Array.from({ length: 23 }, (_, i) =>
    tool(
      `mail.message${String(i).padStart(2, '0')}`,
      `Read mail message number ${i}\nSecond line never shown in search`,
    ),
  ),
  tool('mail.send', 'Send an email', [
    { name: 'to', type: 'string', required: true, description: 'Recipient address' },
    { name: 'subject', type: 'string', required: false, default: 'hello' },
    { name: 'urgent', type: 'boolean', required: false },
  ]),
  tool('docs.search_pages', 'Search documentation pages', [{ name: 'query', type: 'string', required: true }]),
  tool('docs.record0', 'A record'),
  tool('weather', 'Current weather for a city', [{ name: 'city', type: 'string', required: true }]),
];

type Page = {
  items: { path: string; input: string; description: string }[];
  namespaces: { path: string; app: string }[];
  remaining: number;
  next: Record<string, JsonValue> | null;
};

group('tools.search', () => {
  it('pages through every match exactly once by following next, each page within its byte budget', () => {
    const budget = 500;
    const seen: string[] = [];
    let input: JsonValue = { limit: 7 };
    let pages = 0;
    while (input !== null) {
      const page = search(CATALOG, input, budget) as unknown as Page;
      pages += 1;
      expect(page.items.length).toBeGreaterThan(0);
      expect(page.items.length).toBeLessThanOrEqual(7);
      expect(Buffer.byteLength(JSON.stringify(page))).toBeLessThanOrEqual(budget);
      seen.push(...page.items.map((item) => item.path));
      expect(page.remaining).toBe(CATALOG.length - seen.length);
      if (page.next) expect(page.next).toEqual({ limit: 7, offset: seen.length });
      input = page.next;
    }
    expect(pages).toBeGreaterThan(Math.ceil(CATALOG.length / 7));
    expect([...seen].sort()).toEqual(CATALOG.map((t) => `tools.${t.name}`).sort());
  });

  it('always returns at least one item, even over the budget', () => {
    const page = search(CATALOG, { query: 'send' }, 10) as unknown as Page;
    expect(page.items.map((item) => item.path)).toEqual(['tools.mail.send']);
  });

  it('ranks by name, then description, then parameter names; first description line and one-line input', () => {
    const page = search(CATALOG, { query: 'send email' }, 16_384) as unknown as Page;
    expect(page.items[0]).toEqual({
      path: 'tools.mail.send',
      description: 'Send an email',
      input: '{ to: string; subject?: string; urgent?: boolean }',
    });
    const mail = search(CATALOG, { query: 'message', namespace: 'tools.mail', limit: 2 }, 16_384) as unknown as Page;
    expect(mail).toEqual({
      items: [
        { path: 'tools.mail.message00', description: 'Read mail message number 0', input: '{}' },
        { path: 'tools.mail.message01', description: 'Read mail message number 1', input: '{}' },
      ],
      namespaces: [{ path: 'tools.mail', app: 'mail' }],
      remaining: 21,
      next: { query: 'message', namespace: 'tools.mail', limit: 2, offset: 2 },
    });
    expect((search(CATALOG, { query: 'city' }, 16_384) as unknown as Page).items.map((item) => item.path)).toEqual([
      'tools.weather',
    ]);
  });

  it('refuses bad input with InvalidToolInput', () => {
    expect(() => search(CATALOG, { limit: 0 }, 1000)).toThrow(
      'InvalidToolInput: tools.search: limit must be an integer greater than 0',
    );
    expect(() => search(CATALOG, { offset: -1 }, 1000)).toThrow(
      'InvalidToolInput: tools.search: offset must be an integer of 0 or more',
    );
    expect(() => search(CATALOG, { query: 1 }, 1000)).toThrow('InvalidToolInput: tools.search: query must be a string');
    expect(() => search(CATALOG, { q: 'x' }, 1000)).toThrow(
      'InvalidToolInput: tools.search does not take "q"; it takes query, namespace, limit and offset',
    );
  });
});

group('tools.search.describe', () => {
  it('returns whole descriptions and TypeScript signatures in input order, and missing paths with close matches in the same app', () => {
    const result = describe(CATALOG, {
      paths: ['tools.mail.send', 'weather', 'docs.recrod0', 'nope.x'],
    }) as unknown as {
      items: { path: string; description: string; signature: string }[];
      missing: { path: string; matches: string[] }[];
    };
    expect(result.items.map((item) => item.path)).toEqual(['tools.mail.send', 'tools.weather']);
    expect(result.items[0]!.signature).toBe(
      '(input: {\n  /** Recipient address */\n  to: string;\n  /** @default "hello" */\n  subject?: string;\n  urgent?: boolean;\n}): Promise<unknown>',
    );
    expect(result.missing).toEqual([
      { path: 'docs.recrod0', matches: ['tools.docs.record0', 'tools.docs.search_pages'] },
      { path: 'nope.x', matches: [] },
    ]);
    expect(describe(CATALOG, { paths: ['mail.message01'] })).toMatchObject({
      items: [{ description: 'Read mail message number 1\nSecond line never shown in search' }],
    });
    expect(() => describe(CATALOG, { paths: [] })).toThrow(
      'InvalidToolInput: tools.search.describe takes { paths: [...] } with 1 to 20 paths from tools.search',
    );
  });
});

group('code mode inside scripts', () => {
  it('searches, describes and calls tools through tools.*, following next to the end', async () => {
    const names = Array.from(
      { length: 12 },
      (_, i) =>
        `  demo.t${String(i).padStart(2, '0')}:\n    type: cli\n    description: Demo tool ${i}\n    command: echo\n    args: ['{"n":${i}}']\n`,
    );
    const { kernel } = await startCodeKernel(`tools:\n${names.join('')}`);
    const code = `async function run() {
      const paths = [];
      let page = await tools.search({ namespace: "demo", limit: 5 });
      for (;;) { paths.push(...page.items.map((i) => i.path)); if (!page.next) break; page = await tools.search(page.next); }
      const described = await tools.search.describe({ paths: ["tools.demo.t03", "demo.t3"] });
      const three = await tools.demo.t03({});
      return { paths, described: [described.items.length, described.missing[0].matches[0]], three };
    }`;
    const result = await callTool(kernel, 'factorly.code', { code });
    expect(result.status).toBe('success');
    const value = JSON.parse(result.output);
    expect(value.paths).toEqual(Array.from({ length: 12 }, (_, i) => `tools.demo.t${String(i).padStart(2, '0')}`));
    expect(value.described).toEqual([1, 'tools.demo.t03']);
    expect(value.three).toEqual({ n: 3 });
  });

  it('refuses to enumerate tools, with a hint', async () => {
    const { kernel } = await startCodeKernel('tools: {}\n');
    const result = await callTool(kernel, 'factorly.code', {
      code: 'async function run() { return Object.keys(tools) }',
    });
    expect(result).toMatchObject({
      exitCode: 1,
      error: 'TypeError: tools cannot be listed; use tools.search({ query }) to find tools',
    });
  });
});
