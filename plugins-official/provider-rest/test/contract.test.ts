import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toolProviderContract } from 'factorly/testing';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { plugin } from '../src/plugin.js';

// A local API: /hello answers, /hang never does (for the deadline and cancellation cases).
let server: Server;
const base = { url: '' };
beforeAll(async () => {
  server = createServer((request, response) => {
    if (request.url === '/hello') response.end('hello from rest');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

toolProviderContract(
  { describe, it },
  {
    plugin,
    type: 'rest',
    get entry() {
      return { method: 'GET', base_url: base.url, path: '/hello' };
    },
    output: 'hello from rest',
    get slow() {
      return { entry: { method: 'GET', base_url: base.url, path: '/hang' } };
    },
  },
);
