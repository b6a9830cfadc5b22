import type { ChildProcess } from 'node:child_process';

/** One `nats-server` of a test cluster. */
export interface NatsNode {
  name: string;
  url: string;
  monitor: string;
  config: string;
  process?: ChildProcess;
}

/** A JetStream cluster of real `nats-server` processes on loopback, with its own ports and store dirs. */
export interface NatsCluster {
  servers: string[];
  nodes: NatsNode[];
  /** Kills one server (SIGKILL: no goodbye to the others) and waits for it to exit. */
  kill(index: number): Promise<void>;
  /** Starts a killed server again (same store) and waits until the running servers are healthy. */
  restart(index: number): Promise<void>;
  stop(): Promise<void>;
}

/** Starts `size` JetStream servers routed to each other; resolves once every one reports healthy. */
export function startNatsCluster(size?: number): Promise<NatsCluster>;
