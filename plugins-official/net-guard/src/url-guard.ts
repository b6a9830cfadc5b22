import { BlockList, isIP } from 'node:net';

/** Addresses a fetched URL may not reach unless `allow_urls` lists it: loopback, private, link-local, metadata. */
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');
const UNSPECIFIED = new BlockList();
UNSPECIFIED.addSubnet('0.0.0.0', 8, 'ipv4');
UNSPECIFIED.addAddress('::', 'ipv6');
const METADATA = new BlockList();
METADATA.addAddress('169.254.169.254', 'ipv4');
METADATA.addAddress('fd00:ec2::254', 'ipv6');
const PRIVATE = new BlockList();
for (const [net, bits] of [
  ['10.0.0.0', 8],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['100.64.0.0', 10],
  ['169.254.0.0', 16],
  ['198.18.0.0', 15],
] as const) {
  PRIVATE.addSubnet(net, bits, 'ipv4');
}
for (const [net, bits] of [
  ['fc00::', 7],
  ['fe80::', 10],
] as const)
  PRIVATE.addSubnet(net, bits, 'ipv6');

const LINK_LOCAL = new BlockList();
LINK_LOCAL.addSubnet('169.254.0.0', 16, 'ipv4');
LINK_LOCAL.addSubnet('fe80::', 10, 'ipv6');

const METADATA_HOSTS = new Set(['metadata.google.internal', 'metadata', 'instance-data']);
const PREFIX = 'URL blocked by safety guard: ';

/** Why an address may not be reached, or undefined when it may. IPv4-mapped IPv6 is judged as IPv4. */
export function addressProblem(address: string): string | undefined {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  const ip = mapped ?? address;
  const family = isIP(ip) === 6 ? 'ipv6' : 'ipv4';
  if (METADATA.check(ip, family)) return `${PREFIX}cloud metadata endpoint (${address})`;
  if (LOOPBACK.check(ip, family) || UNSPECIFIED.check(ip, family))
    return `${PREFIX}localhost access denied (${address}; use shadow.allow_urls to allow it)`;
  if (PRIVATE.check(ip, family))
    return `${PREFIX}private network access denied (${address}; use shadow.allow_urls to allow it)`;
  return undefined;
}

/**
 * Why an address is never reached, whatever a tool's `allow_urls` says, when a server's redirect
 * (not the config) names it: cloud metadata endpoints and link-local addresses, where a machine's
 * credentials are served. Undefined for any other address. IPv4-mapped IPv6 is judged as IPv4.
 */
export function alwaysRefusedProblem(address: string): string | undefined {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  const ip = mapped ?? address;
  const family = isIP(ip) === 6 ? 'ipv6' : 'ipv4';
  if (!isIP(ip)) return undefined;
  if (METADATA.check(ip, family)) return `${PREFIX}cloud metadata endpoint (${address})`;
  if (LINK_LOCAL.check(ip, family)) return `${PREFIX}link-local address (${address})`;
  return undefined;
}

/** `alwaysRefusedProblem` for a URL before any connection: metadata host names and literal IP hosts. */
export function alwaysRefusedUrlProblem(url: URL): string | undefined {
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (METADATA_HOSTS.has(host)) return `${PREFIX}cloud metadata endpoint (${host})`;
  return alwaysRefusedProblem(host);
}

/** Checks a URL before any connection: scheme, metadata host names, and literal IP hosts. */
export function urlProblem(url: URL): string | undefined {
  if (url.protocol === 'file:') return `${PREFIX}file:// protocol not allowed`;
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return `url must start with http:// or https:// (got ${url.protocol}//)`;
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (METADATA_HOSTS.has(host)) return `${PREFIX}cloud metadata endpoint (${host})`;
  if (host === 'localhost' || host.endsWith('.localhost'))
    return `${PREFIX}localhost access denied (${host}; use shadow.allow_urls to allow it)`;
  return isIP(host) ? addressProblem(host) : undefined;
}

/**
 * `allow_urls` entries let exactly what they name through: same scheme, host and port, and the
 * URL's path under the entry's path. A substring elsewhere in the URL does not count.
 */
export function isAllowed(url: URL, allowUrls: readonly string[]): boolean {
  return allowUrls.some((entry) => {
    let allowed: URL;
    try {
      allowed = new URL(entry);
    } catch {
      return false;
    }
    const path = allowed.pathname.endsWith('/') ? allowed.pathname : `${allowed.pathname}/`;
    return (
      allowed.origin === url.origin &&
      (allowed.pathname === '/' || url.pathname === allowed.pathname || url.pathname.startsWith(path))
    );
  });
}
