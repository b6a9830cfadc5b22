import { afterEach, describe, expect, it } from 'vitest';
import type { Kernel } from 'factorly/testing';
import { eventsOf, startTestKernel } from '../../../test/helpers/kernel.js';
import { applyFilter } from '../src/apply-filter.js';
import { compileFilter } from '../src/filter-spec.js';
import { plugin as outputPlugin } from '../src/plugin.js';
import { collapseBlankLines, compactJson, foldRepeatedLines, stripAnsi } from '../src/text-stages.js';
import { truncateMiddle } from '../src/truncate.js';

const filter = (raw: Record<string, unknown>) => {
  const { filter: compiled, problems } = compileFilter(raw);
  expect(problems).toEqual([]);
  return (text: string) => applyFilter(text, compiled);
};

describe('text stages', () => {
  it('strips ANSI colours and OSC titles, folds blank lines, compacts JSON, folds repeated lines', () => {
    expect(stripAnsi('\x1b[1;31mred\x1b[0m \x1b]0;title\x07done')).toBe('red done');
    expect(collapseBlankLines('a\n\n\n  \nb\n\nc')).toBe('a\n\nb\n\nc');
    expect(compactJson('\n{ "a": [1, 2] }\n')).toBe('\n{"a":[1,2]}\n');
    expect(compactJson('{ not json')).toBe('{ not json');
    expect(foldRepeatedLines('x\nx\nx\ny\n')).toBe('x [repeated 3 times]\ny\n');
  });
});

describe('filter stages', () => {
  it('match_output replaces the output unless its unless matches', async () => {
    const run = filter({
      match_output: [{ pattern: '^added \\d+ packages', message: 'ok (installed)', unless: '(?i)error' }],
    });
    expect(await run('added 12 packages in 2s\n')).toBe('ok (installed)');
    expect(await run('added 12 packages\nnpm ERROR x\n')).toBe('added 12 packages\nnpm ERROR x\n');
  });

  it('keep_lines wins over strip_lines; replace uses groups', async () => {
    expect(await filter({ keep_lines: ['^ok', '^FAIL'], strip_lines: ['^ok'] })('ok a\nnoise\nFAIL b\n')).toBe(
      'ok a\nFAIL b\n',
    );
    expect(await filter({ strip_lines: ['^\\s*$', '^debug'] })('a\n\ndebug x\nb')).toBe('a\nb');
    expect(await filter({ replace: [{ pattern: '(\\w+)=(\\w+)', replacement: '$2<-$1' }] })('a=1 b=2\n')).toBe(
      '1<-a 2<-b\n',
    );
  });

  it('head/tail lines mark what they omit; max_lines says it truncated', async () => {
    const ten = Array.from({ length: 10 }, (_, i) => `l${i + 1}`).join('\n');
    expect(await filter({ head_lines: 2, tail_lines: 2 })(ten)).toBe('l1\nl2\n... 6 lines omitted ...\nl9\nl10');
    expect(await filter({ head_lines: 6, tail_lines: 6 })(ten)).toBe(ten);
    expect(await filter({ tail_lines: 1 })(ten)).toBe('... 9 lines omitted ...\nl10');
    expect(await filter({ max_lines: 3 })(ten)).toBe('l1\nl2\nl3\n... truncated to 3 lines');
  });

  it('json_path: one match as text, several as a JSON array, no match or not JSON unchanged', async () => {
    const doc = JSON.stringify({
      items: [
        { name: 'a', n: 1 },
        { name: 'b', n: 2 },
      ],
      meta: { total: 2 },
    });
    expect(await filter({ json_path: '$.items[0].name' })(doc)).toBe('a');
    expect(await filter({ json_path: '$.meta' })(doc)).toBe('{"total":2}');
    expect(await filter({ json_path: '$.items[?@.n > 1].name' })(doc)).toBe('b');
    expect(await filter({ json_path: '$.items[*].n' })(doc)).toBe('[1,2]');
    expect(await filter({ json_path: '$.missing' })(doc)).toBe(doc);
    expect(await filter({ json_path: '$.a' })('plain text')).toBe('plain text');
  });

  it('pipes output through a command, and passes it through with a visible note when the command fails', async () => {
    expect(await filter({ pipe: { command: 'tr', args: ['a-z', 'A-Z'] } })('shout\n')).toBe('SHOUT\n');
    expect(await filter({ pipe: { command: 'sh', args: ['-c', 'echo bad >&2; exit 4'] } })('keep')).toBe(
      'keep\n[factorly: filter pipe "sh" failed: exit code 4: bad; output left unfiltered]\n',
    );
    expect(await filter({ pipe: { command: 'sleep', args: ['5'], timeout: 0.2 } })('x\n')).toBe(
      'x\n[factorly: filter pipe "sleep" failed: timed out after 200ms; output left unfiltered]\n',
    );
    expect(await filter({ pipe: { command: 'no-such-command-xyz' } })('x\n')).toBe(
      'x\n[factorly: filter pipe "no-such-command-xyz" failed: command not found; output left unfiltered]\n',
    );
  });

  it('reports every bad stage by name', () => {
    expect(
      compileFilter({ keep_lines: ['('], json_path: '$[', head_lines: -1, pipe: {}, sort: true }).problems,
    ).toEqual([
      'unknown stage "sort" (valid: match_output, keep_lines, strip_lines, replace, head_lines, tail_lines, max_lines, json_path, pipe)',
      'keep_lines[0] is not a valid regular expression (Invalid regular expression: /(/mu: Unterminated group)',
      'head_lines is not a whole number of lines',
      expect.stringMatching(/^json_path "\$\[" is not a valid JSONPath \(RFC 9535\): /),
      'pipe has no command (pipe: {command: jq, args: [".items"]})',
    ]);
  });
});

describe('max_output truncation', () => {
  it('keeps head and tail within the limit, never splits a character, and states the bytes removed', () => {
    const text = 'é'.repeat(500) + '日本'.repeat(300) + '🙂'.repeat(100);
    for (const max of [100, 101, 102, 103, 257, 1000]) {
      const cut = truncateMiddle(text, max);
      const bytes = Buffer.byteLength(cut, 'utf8');
      expect(bytes).toBeLessThanOrEqual(max);
      expect(cut).not.toContain('\uFFFD');
      const removed = Number(/\[\.\.\. truncated (\d+) bytes \.\.\.\]/.exec(cut)![1]);
      expect(removed + bytes - Buffer.byteLength(cut.match(/\n\n\[.*\]\n\n/)![0])).toBe(Buffer.byteLength(text));
      expect(cut.startsWith('é')).toBe(true);
      expect(cut.endsWith('🙂')).toBe(true);
    }
    expect(truncateMiddle('short', 100)).toBe('short');
  });
});

describe('output processing in the pipeline', () => {
  let kernel: Kernel | undefined;
  afterEach(async () => {
    await kernel?.stop();
    kernel = undefined;
  });

  it('applies clean → filter → compress → truncate to tools that ask, records byte counts, and leaves others alone', async () => {
    const started = await startTestKernel(
      `tools:
  noisy:
    type: cli
    command: printf
    args: ['\\033[32mok\\033[0m\\n\\n\\n\\nrepeat\\nrepeat\\nrepeat\\ndebug: x\\nend\\n']
    compress: logs
    filter: {strip_lines: ['^debug']}
  big:
    type: cli
    command: sh
    args: ['-c', 'printf "%0.sé" $(seq 1 200)']
    max_output: 64
  plain:
    type: cli
    command: printf
    args: ['a\\n\\n\\n\\nb']
  raw:
    type: cli
    command: printf
    args: ['\\033[32mok\\033[0m\\n\\n\\n\\n{ "a": 1 }\\n']
    compress: none
    max_output: 1000
`,
      [outputPlugin],
    );
    kernel = started.kernel;
    const noisy = await kernel.pipeline.call({ tool: 'noisy', params: {}, iface: 'cli' });
    expect(noisy.output).toBe('ok\n\nrepeat [repeated 3 times]\nend\n');
    const big = await kernel.pipeline.call({ tool: 'big', params: {}, iface: 'cli' });
    expect(Buffer.byteLength(big.output)).toBeLessThanOrEqual(64);
    expect(big.output).toMatch(/^(é)+\n\n\[\.\.\. truncated \d+ bytes \.\.\.\]\n\n(é)+$/);
    const plain = await kernel.pipeline.call({ tool: 'plain', params: {}, iface: 'cli' });
    expect(plain.output).toBe('a\n\n\n\nb');
    // compress: none is no processing at all, even with a max_output the output fits in.
    expect((await kernel.pipeline.call({ tool: 'raw', params: {}, iface: 'cli' })).output).toBe(
      '\x1b[32mok\x1b[0m\n\n\n\n{ "a": 1 }\n',
    );
    const completed = (await eventsOf(started.log)).filter((e) => e.type === 'call.completed').map((e) => e.data);
    expect(completed[0]).toMatchObject({ originalBytes: 49, processedBytes: 34 });
    expect(completed[1]).toMatchObject({ originalBytes: 400, processedBytes: Buffer.byteLength(big.output) });
    expect(completed[2]).toMatchObject({ originalBytes: 6, processedBytes: 6 });
  });

  it('refuses a bad compress value and a bad filter at load time, with the line', async () => {
    await expect(
      startTestKernel(
        `tools:
  a:
    type: cli
    command: echo
    compress: zip
    filter: {json_path: "$["}
`,
        [outputPlugin],
      ),
    ).rejects.toThrow(
      /^config: tool "a" has an invalid compress: "zip" is not one of json, logs, all, none \(\.factorly\/factorly\.yaml:5\)\nconfig: tool "a" has an invalid filter: json_path "\$\[" is not a valid JSONPath/,
    );
  });
});
