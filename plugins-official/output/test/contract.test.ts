import { outputProcessorContract } from 'factorly/testing';
import { describe, it } from 'vitest';
import { cleanProcessor, compressProcessor, filterProcessor, truncateProcessor } from '../src/processors.js';

const test = { describe, it };
outputProcessorContract(test, { processor: cleanProcessor, asks: { settings: { compress: 'all' } } });
outputProcessorContract(test, { processor: compressProcessor, asks: { settings: { compress: 'all' } } });
outputProcessorContract(test, {
  processor: filterProcessor,
  asks: { settings: { filter: { strip_lines: ['^line$'], head_lines: 5 } } },
});
outputProcessorContract(test, { processor: truncateProcessor, asks: { maxOutput: 1000 } });
