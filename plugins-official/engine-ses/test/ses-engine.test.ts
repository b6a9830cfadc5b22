import { join } from 'node:path';
import { hostExitsAfterRunaway, sandboxEngineContract } from '../../../test/contracts/sandbox-engine.contract.js';
import { createSesEngine } from '../src/plugin.js';

sandboxEngineContract('ses', () => createSesEngine());
hostExitsAfterRunaway('ses', join(import.meta.dirname, '..', 'dist', 'src', 'plugin.js'), 'createSesEngine');
