import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A directory of this run's, for what test files share (the packed factorly); removed at the end. */
    runDir: string;
  }
}

export default function setup(project: TestProject): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'factorly-run-'));
  project.provide('runDir', dir);
  return () => rmSync(dir, { recursive: true, force: true });
}
