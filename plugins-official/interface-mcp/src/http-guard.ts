import type { IncomingMessage } from 'node:http';
import { servedHosts } from '@factorly/net-guard';

export interface GuardOptions {
  /** The address bound (`127.0.0.1`, `::1`, `0.0.0.0`, a name). */
  host: string;
  port: number;
  /** Origins allowed besides this server's own (`--allowed-origin`). */
  allowedOrigins: readonly string[];
  /** Host names allowed besides this server's own (`--allowed-host`, e.g. a name a proxy in front of it uses). */
  allowedHosts?: readonly string[];
}

export type Refusal = { status: 403; message: string };

/**
 * Checks one HTTP request before anything else looks at it: the Host header (name and port) against
 * the names this server answers to (`servedHosts`: loopback, the bound address, off loopback the
 * machine's names, `--allowed-host`) and the Origin (when a browser sends one) against those and
 * `--allowed-origin` — a page on another site, even one whose DNS name was rebound to this machine,
 * is refused. The bearer token is the authenticator's (http-auth.ts).
 */
export class HttpGuard {
  private readonly hosts: Set<string>;
  private readonly origins: Set<string>;

  constructor(options: GuardOptions) {
    this.hosts = servedHosts(options.host, options.port, options.allowedHosts ?? []);
    this.origins = new Set([
      ...[...this.hosts].map((host) => `http://${host}`),
      ...options.allowedOrigins.map((o) => o.toLowerCase()),
    ]);
  }

  check(request: IncomingMessage): Refusal | undefined {
    const host = (request.headers.host ?? '').toLowerCase();
    if (!this.hosts.has(host)) return { status: 403, message: `Host "${host}" is not allowed` };
    const origin = request.headers.origin;
    if (origin !== undefined && !this.origins.has(origin.toLowerCase()))
      return { status: 403, message: `Origin "${origin}" is not allowed` };
    return undefined;
  }
}
