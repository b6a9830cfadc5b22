import { connect, createServer, type AddressInfo, type Socket } from 'node:net';

export interface PausableProxy {
  /** The URL a client connects to instead of the server's. */
  url: string;
  /** Holds everything in both directions (a network that stops answering) until `resume`. */
  pause(): void;
  resume(): void;
  close(): Promise<void>;
}

/**
 * A TCP proxy on loopback in front of one NATS server, for one client: while paused it holds what
 * either side sends, then passes it on. The client sees a server that stops answering for a while;
 * the server (and every other client of the cluster) goes on meanwhile.
 */
export async function pausableProxy(target: string): Promise<PausableProxy> {
  const { hostname, port } = new URL(target);
  const held: (() => void)[] = [];
  const sockets = new Set<Socket>();
  let paused = false;
  const forward = (from: Socket, to: Socket): void => {
    from.on('data', (chunk: Buffer) => (paused ? held.push(() => to.write(chunk)) : to.write(chunk)));
  };
  const server = createServer((client) => {
    const upstream = connect(Number(port), hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => undefined).on('close', () => (client.destroy(), upstream.destroy()));
    }
    forward(client, upstream);
    forward(upstream, client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `nats://127.0.0.1:${(server.address() as AddressInfo).port}`,
    pause: () => void (paused = true),
    resume: () => {
      paused = false;
      for (const send of held.splice(0)) send();
    },
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
