import { toolProviderContract } from 'factorly/testing';
import { describe, it } from 'vitest';
import { plugin } from '../src/plugin.js';

toolProviderContract(
  { describe, it },
  {
    plugin,
    type: 'code',
    entry: { code: 'async function run(p) { return "hello " + p.who }', parameters: [{ name: 'who', type: 'string' }] },
    params: { who: 'contract' },
    output: 'hello contract',
    slow: { entry: { code: 'async function run() { while (true) {} }' } },
    official: ['engine-quickjs'],
  },
);
