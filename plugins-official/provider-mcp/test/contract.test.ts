import { resolve } from 'node:path';
import { toolProviderContract } from 'factorly/testing';
import { describe, it } from 'vitest';
import { plugin } from '../src/plugin.js';

// An upstream server over stdio whose first tool, `grow`, answers at once.
toolProviderContract(
  { describe, it },
  {
    plugin,
    type: 'mcp',
    entry: { command: process.execPath, args: [resolve(import.meta.dirname, 'fixtures', 'growing-server.mjs')] },
    output: 'grow ran; tools grown: 1',
  },
);
