import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { servedHosts } from '@factorly/net-guard';

export interface GuardOptions {
  /** The address bound (`127.0.0.1`, `::1`, `0.0.0.0`, a name). */
  host: string;
  port: number;
  token?: string;
  /** Origins allowed besides this server's own (`--allowed-origin`). */
  allowedOrigins: readonly string[];
  /** Host names allowed besides this server's own (`--allowed-host`, e.g. a name a proxy in front of it uses). */
  allowedHosts?: readonly string[];
}

export type Refusal = { status: 401 | 403; message: string };

/**
 * Checks one HTTP request before it reaches MCP: the Host header (name and port) against the names
 * this server answers to (`servedHosts`: loopback, the bound address, off loopback the machine's
 * names, `--allowed-host`) and the Origin (when a browser sends one) against those and
 * `--allowed-origin` — a page on another site, even one whose DNS name was rebound to this
 * machine, is refused — then the bearer token, compared in constant time.
 */
export class HttpGuard {
  private readonly hosts: Set<string>;
  private readonly origins: Set<string>;
  private readonly tokenDigest?: Buffer;

  constructor(options: GuardOptions) {
    this.hosts = servedHosts(options.host, options.port, options.allowedHosts ?? []);
    this.origins = new Set([
      ...[...this.hosts].map((host) => `http://${host}`),
      ...options.allowedOrigins.map((o) => o.toLowerCase()),
    ]);
    if (options.token) this.tokenDigest = digest(options.token);
  }

  check(request: IncomingMessage): Refusal | undefined {
    const host = (request.headers.host ?? '').toLowerCase();
    if (!this.hosts.has(host)) return { status: 403, message: `Host "${host}" is not allowed` };
    const origin = request.headers.origin;
    if (origin !== undefined && !this.origins.has(origin.toLowerCase()))
      return { status: 403, message: `Origin "${origin}" is not allowed` };
    if (!this.tokenDigest) return undefined;
    const header = request.headers.authorization ?? '';
    const presented = header.startsWith('Bearer ') ? header.slice('Bearer '.length) : '';
    // Digests have one length, so the comparison takes the same time whatever was sent.
    if (!timingSafeEqual(digest(presented), this.tokenDigest))
      return { status: 401, message: 'missing or wrong bearer token' };
    return undefined;
  }
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}
