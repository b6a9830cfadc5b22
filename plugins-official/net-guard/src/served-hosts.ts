import { isIP } from 'node:net';
import { hostname, networkInterfaces } from 'node:os';

/**
 * Which `Host` headers a server factorly runs (the web UI, MCP over HTTP) answers to. A page whose
 * DNS name was rebound to this machine sends its own name as Host, so anything not on this list
 * is refused (DNS rebinding). Each entry is `name:port`: the port is part of the check, so a page
 * served by another local program on another port cannot use this one's name either.
 *
 * - always: the loopback names (`localhost`, `127.0.0.1`, `[::1]`);
 * - bound to one address: that address too;
 * - bound to every address (`0.0.0.0`, `::`) or a non-loopback one: also the machine's names — its
 *   host name and the addresses of its network interfaces;
 * - plus `--allowed-host` entries (`name` or `name:port`; without a port, the server's).
 */
export function servedHosts(bound: string, port: number, extra: readonly string[] = []): Set<string> {
  const names = new Set(['localhost', '127.0.0.1', '[::1]']);
  if (!isWildcard(bound)) names.add(bracketed(bound));
  if (!isLoopback(bound)) for (const name of machineNames()) names.add(name);
  const hosts = new Set<string>();
  for (const name of names) {
    hosts.add(`${name}:${port}`.toLowerCase());
    // A browser leaves out the default port: on port 80 the Host is the bare name.
    if (port === 80) hosts.add(name.toLowerCase());
  }
  for (const entry of extra) hosts.add((hasPort(entry) ? entry : `${bracketed(entry)}:${port}`).toLowerCase());
  return hosts;
}

/** A bind address only this machine can reach (127.0.0.0/8, `::1`, `localhost`). */
export function isLoopback(bound: string): boolean {
  const host = bound.replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || host === '::1' || (isIP(host) === 4 && host.startsWith('127.'));
}

/** Why a server may not listen on `bound` as configured, or undefined: off loopback, a token is required. */
export function bindProblem(bound: string, hasToken: boolean, tokenHint: string): string | undefined {
  if (isLoopback(bound) || hasToken) return undefined;
  return `--host ${bound} is reachable from other machines, so every request must carry a token: ${tokenHint}`;
}

function isWildcard(bound: string): boolean {
  return ['0.0.0.0', '::', '[::]'].includes(bound);
}

function machineNames(): string[] {
  const addresses = Object.values(networkInterfaces())
    .flatMap((list) => list ?? [])
    .map((entry) => bracketed(entry.address.split('%')[0]));
  return [hostname(), ...addresses];
}

function bracketed(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

function hasPort(entry: string): boolean {
  return entry.startsWith('[') ? /\]:\d+$/.test(entry) : /^[^:]+:\d+$/.test(entry);
}
