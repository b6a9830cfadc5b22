import { join } from 'node:path';
import { hostExitsAfterRunaway, sandboxEngineContract } from '../../../test/contracts/sandbox-engine.contract.js';
import { createQuickJsEngine } from '../src/plugin.js';

sandboxEngineContract('quickjs', () => createQuickJsEngine());
hostExitsAfterRunaway('quickjs', join(import.meta.dirname, '..', 'dist', 'src', 'plugin.js'), 'createQuickJsEngine');
