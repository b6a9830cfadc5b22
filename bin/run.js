#!/usr/bin/env node
import { fileURLToPath } from 'node:url';

// A command that reads the event log (`logs …`, `call`) runs in a child this process guards: LMDB ending it
// on a damaged page is then reported as the damaged file, exit code 2 (see src/cli/log-guard.ts).
const { runGuarded } = await import('../dist/src/cli/log-guard.js');
if (!(await runGuarded(process.argv.slice(2), fileURLToPath(import.meta.url)))) {
  // Commands that need nothing of oclif (`--version`, `call`) start without loading it.
  const { launch } = await import('../dist/src/cli/launch.js');
  if (!(await launch(process.argv.slice(2), fileURLToPath(new URL('..', import.meta.url))))) {
    const { execute, settings } = await import('@oclif/core');
    // Linked plugins ship compiled JavaScript; there is nothing to transpile.
    settings.enableAutoTranspile = false;
    await execute({ dir: import.meta.url });
  }
}
