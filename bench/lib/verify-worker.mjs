// Runs what `logs verify` checks (chain, indexes, derived state, Merkle tree) on one LMDB log in a process of its
// own and prints events/s and the peak RSS, so its memory is measured apart from the bench's own.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [repo, path] = process.argv.slice(2);
const load = (file) => import(pathToFileURL(join(repo, file)).href);
const { verifyLogFile } = await load('dist/src/events/verify-log.js');
const { derivedViews } = await load('dist/src/events/derived-views.js');
const { loopProjection } = await load('plugins-official/shadow/dist/src/loop-rule.js');
const { bucketsProjection } = await load('plugins-official/shadow/dist/src/rate-limit-rule.js');
// What `logs verify` re-derives on this project: factorly's own projections and indexes and the rules' histories.
const { projections, indexes } = derivedViews();
const views = [...projections, ...indexes, loopProjection, bucketsProjection];
const rssBefore = process.memoryUsage().rss;
const started = performance.now();
const report = await verifyLogFile(path, { views });
const ms = performance.now() - started;
process.stdout.write(
  `${JSON.stringify({ ok: report.ok, verified: report.verified, findings: report.findings.slice(0, 3), derived: report.derived?.map((check) => `${check.name}:${check.status}`), ms, rssBeforeMB: rssBefore / 2 ** 20, maxRssMB: process.resourceUsage().maxRSS / 1024 })}\n`,
);
