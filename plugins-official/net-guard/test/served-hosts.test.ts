import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { servedHosts } from '../src/served-hosts.js';

describe('the Host allow-list includes the port, and holds on every bind', () => {
  it("lists loopback names, the bound address, off loopback the machine's names, and --allowed-host, each with the port", () => {
    expect([...servedHosts('127.0.0.1', 3741)].sort()).toEqual(['127.0.0.1:3741', '[::1]:3741', 'localhost:3741']);
    const everywhere = servedHosts('0.0.0.0', 3741, ['proxy.test', 'other.test:8443']);
    expect(everywhere).toContain(`${hostname().toLowerCase()}:3741`);
    expect(everywhere).toContain('proxy.test:3741');
    expect(everywhere).toContain('other.test:8443');
    expect(everywhere).not.toContain('0.0.0.0:3741');
    expect(servedHosts('127.0.0.1', 80)).toContain('localhost');
  });
});
