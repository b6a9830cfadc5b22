import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export interface GuardOptions {
  /** The address bound (`127.0.0.1`, `::1`, `0.0.0.0`, a name). */
  host: string;
  port: number;
  token?: string;
  /** Origins allowed besides this server's own loopback origins. */
  allowedOrigins: readonly string[];
}

export type Refusal = { status: 401 | 403; message: string };

const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];
const WILDCARDS = new Set(['0.0.0.0', '::', '[::]']);

/**
 * Checks one HTTP request before it reaches MCP: the Host header against the names this server
 * answers to and the Origin (when a browser sends one) against an allowlist — a page on another
 * site, even one whose DNS name was rebound to 127.0.0.1, is refused — then the bearer token,
 * compared in constant time.
 */
export class HttpGuard {
  private readonly hosts: Set<string>;
  private readonly origins: Set<string>;
  private readonly tokenDigest?: Buffer;

  constructor(private readonly options: GuardOptions) {
    const names = new Set([...LOOPBACK_NAMES, bracketed(options.host)]);
    this.hosts = new Set([...names].map((name) => `${name}:${options.port}`.toLowerCase()));
    this.origins = new Set([...[...names].map((name) => `http://${name}:${options.port}`.toLowerCase()), ...options.allowedOrigins.map((o) => o.toLowerCase())]);
    if (options.token) this.tokenDigest = digest(options.token);
  }

  check(request: IncomingMessage): Refusal | undefined {
    const host = (request.headers.host ?? '').toLowerCase();
    if (!WILDCARDS.has(this.options.host) && !this.hosts.has(host)) return { status: 403, message: `Host "${host}" is not allowed` };
    const origin = request.headers.origin;
    if (origin !== undefined && !this.origins.has(origin.toLowerCase())) return { status: 403, message: `Origin "${origin}" is not allowed` };
    if (!this.tokenDigest) return undefined;
    const header = request.headers.authorization ?? '';
    const presented = header.startsWith('Bearer ') ? header.slice('Bearer '.length) : '';
    // Digests have one length, so the comparison takes the same time whatever was sent.
    if (!timingSafeEqual(digest(presented), this.tokenDigest)) return { status: 401, message: 'missing or wrong bearer token' };
    return undefined;
  }
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

function bracketed(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}
