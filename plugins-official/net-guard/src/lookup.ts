import { FactorlyError } from '@factorly/error-kit';
import { lookup, type LookupAddress } from 'node:dns';
import { addressProblem } from './url-guard.js';

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | { address: string; family: number }[],
  family?: number,
) => void;

/** An HTTP client's `connect.lookup`: what a socket asks to turn a host name into addresses. */
export type GuardedLookup = (hostname: string, options: object, callback: LookupCallback) => void;

/**
 * How host names are resolved: `dns.lookup` asked for every address. Replaceable, so a test can
 * point a name at an address (a metadata endpoint) without touching the machine's resolver.
 */
export type Resolver = (
  hostname: string,
  options: { all: true; family?: number },
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

const systemResolver: Resolver = (hostname, options, callback) => lookup(hostname, options, callback);

/**
 * A lookup that refuses to hand a socket any address `problem` rejects: for an HTTP client's
 * `connect.lookup`, so a name that resolves to a refused address (or is re-pointed to one between
 * a check and the connection) is refused at the moment of connecting.
 */
export function guardLookup(
  problem: (address: string) => string | undefined,
  resolve: Resolver = systemResolver,
): GuardedLookup {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const refused = addresses.map((entry) => problem(entry.address)).find((p) => p !== undefined);
      if (refused)
        return callback(
          new FactorlyError('ADDRESS_BLOCKED', `${refused} (${hostname} resolves to it)`) as NodeJS.ErrnoException,
          [],
        );
      const all = (options as { all?: boolean }).all;
      return all ? callback(null, addresses) : callback(null, addresses[0].address, addresses[0].family);
    });
  };
}

/** The SSRF guard at DNS lookup: loopback, private, link-local and metadata addresses are refused. */
export const guardedLookup: GuardedLookup = guardLookup(addressProblem);
