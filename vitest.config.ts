import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'plugins-official/*/test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // The 3-server JetStream cluster the NATS log's tests share (each uses streams of its own).
    globalSetup: ['test/helpers/nats-global-setup.ts'],
  },
});
