import { FactorlyError } from '@factorly/error-kit';
import { lookup } from 'node:dns';
import { addressProblem } from './url-guard.js';

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | { address: string; family: number }[],
  family?: number,
) => void;

/**
 * `dns.lookup` that refuses to hand a socket any address the guard rejects: for an HTTP client's
 * `connect.lookup`, so a name that resolves to a private address (or is re-pointed to one between
 * a check and the connection) is refused at the moment of connecting.
 */
export function guardedLookup(hostname: string, options: object, callback: LookupCallback): void {
  lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    const problem = addresses.map((entry) => addressProblem(entry.address)).find((p) => p !== undefined);
    if (problem)
      return callback(
        new FactorlyError('ADDRESS_BLOCKED', `${problem} (${hostname} resolves to it)`) as NodeJS.ErrnoException,
        [],
      );
    const all = (options as { all?: boolean }).all;
    return all ? callback(null, addresses) : callback(null, addresses[0].address, addresses[0].family);
  });
}
