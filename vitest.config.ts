import { resolve } from 'node:path';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // Tests reach factorly as a plugin project outside the repo does (`factorly`, `factorly/events`,
  // `factorly/testing`: the package's exports); here each entry is this checkout's source.
  resolve: {
    alias: [
      { find: /^factorly$/, replacement: resolve(import.meta.dirname, 'src/plugins/index.ts') },
      { find: /^factorly\/testing$/, replacement: resolve(import.meta.dirname, 'src/testing/index.ts') },
      { find: /^factorly\/events$/, replacement: resolve(import.meta.dirname, 'src/events/index.ts') },
    ],
  },
  test: {
    include: ['test/**/*.test.ts', 'plugins-official/*/test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Two files at a time on two cores (vitest's default leaves one core idle): most e2e files wait
    // on child processes and servers, so the suite takes ~11 minutes instead of ~18.
    maxWorkers: 2,
    // The 3-server JetStream cluster the NATS log's tests share (each uses streams of its own), and
    // a directory for what else files share.
    globalSetup: ['test/helpers/nats-global-setup.ts', 'test/helpers/run-dir-setup.ts'],
  },
});
