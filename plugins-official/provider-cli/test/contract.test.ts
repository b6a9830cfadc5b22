import { toolProviderContract } from 'factorly/testing';
import { describe, it } from 'vitest';
import { plugin } from '../src/plugin.js';

toolProviderContract(
  { describe, it },
  {
    plugin,
    type: 'cli',
    entry: { command: 'echo', args: ['{{who}}'], parameters: [{ name: 'who', type: 'string' }] },
    params: { who: 'contract' },
    output: 'contract\n',
    slow: { entry: { command: 'sleep', args: ['30'] } },
  },
);
