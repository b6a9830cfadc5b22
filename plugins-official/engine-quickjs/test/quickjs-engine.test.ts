import { join } from 'node:path';
import { sandboxEngineContract } from 'factorly/testing';
import { afterAll, describe, it } from 'vitest';
import { createQuickJsEngine } from '../src/plugin.js';

sandboxEngineContract(
  { describe, it, afterAll },
  {
    name: 'quickjs',
    create: () => createQuickJsEngine(),
    module: { path: join(import.meta.dirname, '..', 'dist', 'src', 'plugin.js'), factory: 'createQuickJsEngine' },
  },
);
