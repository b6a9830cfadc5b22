import type { TestProject } from 'vitest/node';
import { startNatsCluster } from './nats-cluster.mjs';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Client URLs of the 3-node JetStream cluster the NATS test files share. */
    natsServers: string[];
  }
}

/** One JetStream cluster (3 servers, loopback) for every test file of the run; stopped at the end. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const cluster = await startNatsCluster(3);
  project.provide('natsServers', cluster.servers);
  return () => cluster.stop();
}
