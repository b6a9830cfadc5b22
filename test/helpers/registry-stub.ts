import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { basename } from 'node:path';
import { readPluginPackage } from '../../src/cli/plugin-package.js';

/** A loopback npm registry serving the tarballs published to it, and recording every request's path. */
export interface RegistryStub {
  url: string;
  /** Every path asked for, decoded (`/name`, `/name/-/name-1.0.0.tgz`), in order. */
  requests: string[];
  publish(tarball: string): void;
  close(): Promise<void>;
}

export async function startRegistryStub(): Promise<RegistryStub> {
  const packuments = new Map<string, Record<string, unknown>>();
  const files = new Map<string, Buffer>();
  const requests: string[] = [];
  const server = createServer((request, response) => {
    const path = decodeURIComponent(new URL(request.url ?? '/', 'http://stub').pathname);
    requests.push(path);
    const file = files.get(path);
    const packument = packuments.get(path.slice(1));
    const body = file ?? (packument ? JSON.stringify(packument) : JSON.stringify({ error: 'Not found' }));
    response.writeHead(file || packument ? 200 : 404, {
      'content-type': file ? 'application/octet-stream' : 'application/json',
    });
    response.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    requests,
    publish(tarball) {
      const bytes = readFileSync(tarball);
      const pkg = readPluginPackage(tarball);
      const path = `/${pkg.name}/-/${basename(tarball)}`;
      files.set(path, bytes);
      const dist = {
        tarball: `${url}${path}`,
        shasum: createHash('sha1').update(bytes).digest('hex'),
        integrity: `sha512-${createHash('sha512').update(bytes).digest('base64')}`,
      };
      packuments.set(pkg.name, {
        name: pkg.name,
        'dist-tags': { latest: pkg.version },
        versions: { [pkg.version]: { ...pkg, _id: `${pkg.name}@${pkg.version}`, dist } },
      });
    },
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
