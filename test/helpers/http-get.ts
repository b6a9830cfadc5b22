import { request as httpRequest } from 'node:http';

/** A GET to 127.0.0.1:<port> with the Host header an attacker's page would send. */
export function getWithHost(
  port: string,
  path: string,
  headers: Record<string, string>,
): Promise<{ status?: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: Number(port), path, headers }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode, body: body.trim() }));
    });
    req.on('error', reject);
    req.end();
  });
}
