import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ConfirmChannel, ConfirmRequest } from 'factorly';
import { plugin as builtins } from '@factorly/plugin-builtins';
import { plugin as oauth } from '@factorly/plugin-oauth';
import { plugin as rest } from '@factorly/plugin-provider-rest';
import { plugin as shadow } from '@factorly/plugin-shadow';
import { plugin as vault } from '@factorly/plugin-vault';
import { MemoryEventLog } from '../../src/events/memory-log.js';
import { createKernel, type Kernel } from '../../src/kernel/kernel.js';
import { inline } from './kernel.js';
import { contribute } from './shadow.js';

/** The vault password the projects of these tests keep in `.factorly/vault.key`. */
export const VAULT_PASSWORD = 'test-vault-password-1';

export interface BlueprintKernel {
  kernel: Kernel;
  log: MemoryEventLog;
  /** Every confirmation asked for, by tool. */
  asked: string[];
}

/**
 * A kernel with the official plugins a blueprint needs (rest tools, the vault, OAuth, shadow rules,
 * the built-ins) over `root`, its vault unlocked by a key file, and a confirm channel that approves
 * and remembers what it was asked.
 */
export async function blueprintKernel(root: string, config = 'tools: {}\n'): Promise<BlueprintKernel> {
  mkdirSync(join(root, '.factorly'), { recursive: true });
  writeFileSync(join(root, '.factorly', 'factorly.yaml'), config);
  writeFileSync(join(root, '.factorly', 'vault.key'), VAULT_PASSWORD, { mode: 0o600 });
  const asked: string[] = [];
  const approve: ConfirmChannel = {
    name: 'test-approve',
    ask: async (request: ConfirmRequest) => {
      asked.push(request.tool);
      return { approved: true, by: 'test' };
    },
  };
  const log = new MemoryEventLog();
  const kernel = await createKernel({
    cwd: root,
    globalDir: join(root, 'no-global'),
    log,
    inlinePlugins: [rest, vault, oauth, shadow, builtins, contribute('approve', { channels: [approve] })].map(inline),
  });
  return { kernel, log, asked };
}
