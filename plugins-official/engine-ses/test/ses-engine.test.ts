import { join } from 'node:path';
import { sandboxEngineContract } from 'factorly/testing';
import { afterAll, describe, it } from 'vitest';
import { createSesEngine } from '../src/plugin.js';

sandboxEngineContract(
  { describe, it, afterAll },
  {
    name: 'ses',
    create: () => createSesEngine(),
    module: { path: join(import.meta.dirname, '..', 'dist', 'src', 'plugin.js'), factory: 'createSesEngine' },
  },
);
