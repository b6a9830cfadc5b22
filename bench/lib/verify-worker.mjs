// Runs what `logs verify` checks (chain, indexes, Merkle tree) on one LMDB log in a process of its
// own and prints events/s and the peak RSS, so its memory is measured apart from the bench's own.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [repo, path] = process.argv.slice(2);
const { verifyLogFile } = await import(pathToFileURL(join(repo, 'dist/src/events/verify-log.js')).href);
const rssBefore = process.memoryUsage().rss;
const started = performance.now();
const report = await verifyLogFile(path);
const ms = performance.now() - started;
process.stdout.write(
  `${JSON.stringify({ ok: report.ok, verified: report.verified, findings: report.findings.slice(0, 3), ms, rssBeforeMB: rssBefore / 2 ** 20, maxRssMB: process.resourceUsage().maxRSS / 1024 })}\n`,
);
