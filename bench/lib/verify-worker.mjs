// Walks the chain of one LMDB log in a process of its own and prints events/s and the peak RSS, so
// `logs verify`'s memory is measured apart from the bench's own.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [repo, path] = process.argv.slice(2);
const { LmdbEventLog } = await import(pathToFileURL(join(repo, 'dist/src/events/lmdb-log.js')).href);
const { verifyChain } = await import(pathToFileURL(join(repo, 'dist/src/events/verify.js')).href);
const log = new LmdbEventLog({ path });
const rssBefore = process.memoryUsage().rss;
const started = performance.now();
const report = await verifyChain(log.read(), await log.attestedHead());
const ms = performance.now() - started;
await log.close();
process.stdout.write(`${JSON.stringify({ ok: report.ok, verified: report.verified, ms, rssBeforeMB: rssBefore / 2 ** 20, maxRssMB: process.resourceUsage().maxRSS / 1024 })}\n`);
