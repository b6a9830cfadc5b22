import { describe, expect, it } from 'vitest';
import type { OutputContext, OutputProcessor } from '../../src/contracts/extensions.js';
import { outputProcessorContract, type OutputProcessorSubject } from '../../src/testing/contracts/output-processor.js';
import { PASSED, runSuite } from '../helpers/suite-runner.js';

/**
 * The output-processor suite run on planted processors: one that keeps the contract passes every
 * case; each break fails the case it breaks.
 */

const asks = (context: OutputContext) => context.tool.settings?.shout === true;

/** Upper-cases the output of a tool with `shout: true`, unless `process` is given. */
function planted(over: Partial<OutputProcessor> = {}): OutputProcessorSubject {
  return {
    processor: {
      name: 'planted',
      order: 100,
      process: (text, context) => (asks(context) ? text.toUpperCase() : text),
      ...over,
    },
    asks: { settings: { shout: true } },
  };
}

const run = (subject: OutputProcessorSubject) => runSuite((api) => outputProcessorContract(api, subject));
const SAMPLES_CASE =
  'turns every sample on every stream into a string, the same one each time, never breaking a character';

describe('the output-processor suite on planted processors', () => {
  it('passes a processor that keeps the contract, every case', async () => {
    const outcomes = await run(planted());
    expect([...outcomes.values()]).toEqual([PASSED, PASSED, PASSED, PASSED]);
  });

  it('fails a processor that cuts text by UTF-16 units, leaving half an emoji', async () => {
    const outcomes = await run(planted({ process: (text, context) => (asks(context) ? text.slice(0, 1001) : text) }));
    expect(outcomes.get(SAMPLES_CASE)).toMatch(/a character was broken: half a character \(a lone surrogate\) at 1000/);
  });

  it('fails a processor that does nothing for a tool that asks for it, and one that acts on a tool that asks for nothing', async () => {
    const idle = await run(planted({ process: (text) => text }));
    expect(idle.get('acts on the output of a call that asks for it (else the other cases test nothing)')).toBe(
      'the processor changed none of the samples for a tool with {"settings":{"shout":true}}: the suite would test nothing',
    );
    const eager = await run(planted({ process: (text) => `${text}!` }));
    expect(eager.get('leaves the output of a tool that asks for nothing as it is')).not.toBe(PASSED);
  });

  it('fails a processor that answers differently each time, one without an order, and one that turns a binary block into text', async () => {
    let n = 0;
    const fickle = await run(planted({ process: (text, context) => (asks(context) ? `${(n += 1)}${text}` : text) }));
    expect(fickle.get(SAMPLES_CASE)).toMatch(/^output, sample 0: not the same twice/);
    const unordered = await run(planted({ order: Number.NaN }));
    expect(unordered.get('has a name and an order')).not.toBe(PASSED);
    const leaky = await run(
      planted({
        processContent: (result) => ({
          content: result.content.map((block) =>
            block.type === 'image' ? { type: 'text', text: String(block.data) } : block,
          ),
        }),
      }),
    );
    expect(leaky.get('never cuts a binary block into text: it stays whole or is replaced by a note')).toBe(
      'a binary block became text',
    );
  });

  it('gives a processor that acts on every tool (optIn: false) a call with a secret to act on', async () => {
    const scrubber = (text: string, context: OutputContext) => {
      let out = text;
      for (const value of context.secrets.values()) out = out.replaceAll(value, '***');
      return out;
    };
    const outcomes = await run({ processor: { name: 'scrub', order: 1, process: scrubber }, optIn: false });
    expect([...outcomes.values()]).toEqual([PASSED, PASSED, PASSED]);
    const idle = await run({ processor: { name: 'idle', order: 1, process: (text) => text }, optIn: false });
    expect([...idle.values()][1]).toMatch(/changed none of the samples for a call with a secret/);
  });
});
