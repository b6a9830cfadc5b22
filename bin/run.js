#!/usr/bin/env node
import { fileURLToPath } from 'node:url';

// Commands that need nothing of oclif (`--version`, `call`) start without loading it.
const { launch } = await import('../dist/src/cli/launch.js');
if (!(await launch(process.argv.slice(2), fileURLToPath(new URL('..', import.meta.url))))) {
  const { execute, settings } = await import('@oclif/core');
  // Linked plugins ship compiled JavaScript; there is nothing to transpile.
  settings.enableAutoTranspile = false;
  await execute({ dir: import.meta.url });
}
