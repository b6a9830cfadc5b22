import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { outputProcessorContract, secretBackendContract } from 'factorly/testing';
import type { ProjectPaths } from 'factorly';
import { describe, it } from 'vitest';
import { CliBackend } from '../src/cli-backend.js';
import { EnvBackend } from '../src/env-backend.js';
import { LocalVault } from '../src/local-vault.js';
import { SecretScrubber } from '../src/scrub-processor.js';

const test = { describe, it };

/** A project of its own for the vault file, unlocked by the password variable. */
function projectPaths(): ProjectPaths {
  const root = mkdtempSync(join(tmpdir(), 'factorly-vault-contract-'));
  const stateDir = join(root, '.factorly');
  return {
    mainFile: join(stateDir, 'factorly.yaml'),
    stateDir,
    baseDir: root,
    logPath: join(stateDir, 'events.lmdb'),
    global: false,
    globalDir: join(root, 'global'),
  };
}
process.env.FACTORLY_VAULT_PASSWORD = 'contract password';
process.env.CONTRACT_ENV_SECRET = 'from-the-environment';

secretBackendContract(test, { name: 'vault', create: () => new LocalVault(projectPaths()) });
secretBackendContract(test, {
  name: 'env',
  create: () => new EnvBackend(),
  known: { key: 'CONTRACT_ENV_SECRET', value: 'from-the-environment' },
});
secretBackendContract(test, {
  name: 'pm',
  create: () =>
    new CliBackend({
      name: 'pm',
      get: {
        command: process.execPath,
        args: ['-e', 'if (process.argv[1] === "KNOWN") console.log("pm-value"); else process.exit(0)', '{{key}}'],
      },
    }),
  known: { key: 'KNOWN', value: 'pm-value' },
});
// The scrubber acts on every tool's text, whenever the call resolved secrets.
outputProcessorContract(test, { processor: new SecretScrubber(), optIn: false });
