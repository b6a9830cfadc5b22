import { describe, expect, it } from 'vitest';
import type { OutputProcessor } from '../../src/contracts/extensions.js';
import type { ToolDefinition } from '../../src/contracts/tool.js';
import { processResult } from '../../src/kernel/process-output.js';
import { toolDefinition } from '../helpers/tool-definition.js';

const tool: ToolDefinition = toolDefinition();
const base = { tool, secrets: new Map([['vault:K', 's3cret']]) };

describe('processing a result', () => {
  it('runs async processors over output, error, diagnostics and structured content, telling each which stream it sees', async () => {
    const seen: string[] = [];
    const scrub: OutputProcessor = {
      name: 'scrub',
      order: 0,
      process: async (text, context) => {
        seen.push(context.stream ?? '?');
        return text.replaceAll('s3cret', '****');
      },
    };
    const result = await processResult(
      [scrub],
      {
        output: 'a s3cret',
        error: 'e s3cret',
        diagnostics: 'd s3cret',
        exitCode: 1,
        structuredContent: { token: 's3cret', n: 1 },
      },
      base,
    );
    expect(result).toEqual({
      output: 'a ****',
      originalOutput: 'a s3cret',
      error: 'e ****',
      diagnostics: 'd ****',
      structuredContent: { token: '****', n: 1 },
      processed: true,
    });
    expect(seen).toEqual(['output', 'error', 'diagnostics', 'structured']);
  });

  it('drops structured content that a processor leaves unreadable rather than return it half-processed', async () => {
    const cut: OutputProcessor = { name: 'cut', order: 0, process: (text) => text.slice(0, 5) };
    const result = await processResult(
      [cut],
      { output: 'hello world', exitCode: 0, structuredContent: { long: 'value' } },
      base,
    );
    expect(result).toEqual({ output: 'hello', originalOutput: 'hello world', processed: true });
  });
});
