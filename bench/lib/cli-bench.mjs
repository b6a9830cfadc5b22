// Wall time of `factorly call` on a trivial cli tool, next to the same command run directly.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { LmdbEventLog } from '../../dist/src/events/lmdb-log.js';
import { verifyChain } from '../../dist/src/events/verify.js';
import { now, round, summarize } from './stats.mjs';

const EXPECTED_OUTPUT = 'Hello, Ada!\n';
/** The same greeting as code tools, one per engine: what a sandboxed script costs a call over a cli tool. */
const CODE_TOOLS = ['ses', 'quickjs']
  .map(
    (engine) =>
      `  hi_${engine}:\n    type: code\n    engine: ${engine}\n    parameters: [{name: name, type: string}]\n    shadow: {loop: false}\n    code: 'async function run(p) { return "Hello, " + p.name + "!\\n" }'\n`,
  )
  .join('');

/**
 * @param {{ repo: string, tmpRoot: string, runs: number, warmups: number, baselineRepo?: string, log?: (line: string) => void }} opts
 */
export async function runCliBench(opts) {
  const say = opts.log ?? (() => {});
  const failures = [];
  const bin = join(opts.repo, 'bin', 'run.js');
  const node = process.execPath;
  const dir = mkdtempSync(join(opts.tmpRoot, 'cli-'));
  try {
    const init = spawnSync(node, [bin, 'init'], { cwd: dir, encoding: 'utf8' });
    if (init.status !== 0 || !existsSync(join(dir, '.factorly', 'factorly.yaml'))) {
      throw new Error(`factorly init failed (status ${init.status}): ${init.stderr || init.stdout}`);
    }
    // The same call seventeen times in a row is exactly what loop detection blocks (at 12): switch it
    // off for this tool, so the bench measures a governed call that is let through.
    writeFileSync(
      join(dir, '.factorly', 'factorly.yaml'),
      readFileSync(join(dir, '.factorly', 'factorly.yaml'), 'utf8').replace(
        '        default: world\n',
        '        default: world\n    shadow: {loop: false}\n',
      ) + CODE_TOOLS,
    );
    // The baseline build calls the same tool in a project of its own (its log is its own too).
    const baselineDir = join(opts.tmpRoot, `${basename(dir)}-baseline`);
    if (opts.baselineRepo) {
      mkdirSync(join(baselineDir, '.factorly'), { recursive: true });
      copyFileSync(join(dir, '.factorly', 'factorly.yaml'), join(baselineDir, '.factorly', 'factorly.yaml'));
    }

    // A copy of the project with a third-party plugin linked (a rule, which every call loads) that
    // imports `factorly` at run time: what the resolve hook an installed plugin needs costs, its load
    // included. Its own project, data and cache dirs, so neither variant invalidates the other's caches.
    const linkedDir = join(opts.tmpRoot, `${basename(dir)}-linked`);
    mkdirSync(join(linkedDir, '.factorly'), { recursive: true });
    copyFileSync(join(dir, '.factorly', 'factorly.yaml'), join(linkedDir, '.factorly', 'factorly.yaml'));
    const linkedEnv = {
      ...process.env,
      XDG_DATA_HOME: join(linkedDir, '.xdg-data'),
      XDG_CACHE_HOME: join(linkedDir, '.xdg-cache'),
    };
    const fixture = join(opts.repo, 'test', 'fixtures', 'sdk-plugins', 'sdk-rule');
    const link = spawnSync(node, [bin, 'plugins', 'link', fixture], {
      cwd: linkedDir,
      encoding: 'utf8',
      env: linkedEnv,
    });
    if (link.status !== 0) throw new Error(`factorly plugins link failed (status ${link.status}): ${link.stderr}`);

    const commands = [
      { id: 'direct', name: 'echo Hello, Ada! (direct)', file: 'echo', args: ['Hello, Ada!'], expect: EXPECTED_OUTPUT },
      { id: 'node', name: 'node -e 0 (Node start-up floor)', file: node, args: ['-e', '0'] },
      { id: 'version', name: 'factorly --version', file: node, args: [bin, '--version'] },
      {
        id: 'call',
        name: 'factorly call greet --name Ada',
        file: node,
        args: [bin, 'call', 'greet', '--name', 'Ada'],
        expect: EXPECTED_OUTPUT,
      },
      ...['ses', 'quickjs'].map((engine) => ({
        id: `call-${engine}`,
        name: `factorly call hi_${engine} --name Ada (a code tool on ${engine})`,
        file: node,
        args: [bin, 'call', `hi_${engine}`, '--name', 'Ada'],
        expect: EXPECTED_OUTPUT,
      })),
      {
        id: 'call-linked',
        name: 'factorly call greet --name Ada (+ a linked plugin importing factorly)',
        file: node,
        args: [bin, 'call', 'greet', '--name', 'Ada'],
        expect: EXPECTED_OUTPUT,
        env: linkedEnv,
        cwd: linkedDir,
      },
      // Another build (BENCH_MCP_BASELINE_REPO, e.g. main before a change) on the same project, taking turns with this one.
      ...(opts.baselineRepo
        ? [
            {
              id: 'baseline-version',
              name: 'factorly --version (baseline build)',
              file: node,
              args: [join(opts.baselineRepo, 'bin', 'run.js'), '--version'],
            },
            {
              id: 'baseline-call',
              name: 'factorly call greet --name Ada (baseline build)',
              file: node,
              args: [join(opts.baselineRepo, 'bin', 'run.js'), 'call', 'greet', '--name', 'Ada'],
              expect: EXPECTED_OUTPUT,
              cwd: baselineDir,
            },
          ]
        : []),
    ];
    const samples = new Map(commands.map((c) => [c.id, []]));
    const runOnce = (c, record) => {
      const t0 = now();
      const r = spawnSync(c.file, c.args, { cwd: c.cwd ?? dir, encoding: 'utf8', env: c.env ?? process.env });
      const ms = now() - t0;
      if (r.error || r.status !== 0) {
        throw new Error(`${c.name} failed (status ${r.status}${r.error ? `, ${r.error.message}` : ''}): ${r.stderr}`);
      }
      if (c.expect !== undefined && r.stdout !== c.expect) {
        throw new Error(`${c.name} printed ${JSON.stringify(r.stdout)}, expected ${JSON.stringify(c.expect)}`);
      }
      if (record) samples.get(c.id).push(ms);
    };
    // Interleaved (round-robin) so drift in machine load affects every command alike.
    say(`  ${opts.warmups} warm-up round(s), then ${opts.runs} timed round(s) of ${commands.length} commands ...`);
    for (let i = 0; i < opts.warmups; i += 1) for (const c of commands) runOnce(c, false);
    for (let i = 0; i < opts.runs; i += 1) for (const c of commands) runOnce(c, true);

    const results = commands.map((c) => ({
      id: c.id,
      name: c.name,
      command: [c.file === node ? 'node' : c.file, ...c.args.map((a) => (a === bin ? '<repo>/bin/run.js' : a))].join(
        ' ',
      ),
      ...summarize(samples.get(c.id)),
      samplesMs: samples.get(c.id).map((v) => round(v)),
    }));
    const by = Object.fromEntries(results.map((r) => [r.id, r]));

    // What the calls left behind: the chain must be intact, and its size tells events per call.
    const calls = (opts.warmups + opts.runs) * 3; // greet, hi_ses, hi_quickjs
    const log = new LmdbEventLog({ path: join(dir, '.factorly', 'events.lmdb') });
    const chain = await verifyChain(log.read());
    await log.close();
    if (!chain.ok) failures.push(`cli: event log of the call runs is broken: ${JSON.stringify(chain.firstBad)}`);

    const overhead = {
      callMinusDirectMedianMs: round(by.call.medianMs - by.direct.medianMs),
      callMinusDirectP90Ms: round(by.call.p90Ms - by.direct.p90Ms),
      callOverDirectRatio: round(by.call.medianMs / by.direct.medianMs, 1),
      callMinusVersionMedianMs: round(by.call.medianMs - by.version.medianMs),
      versionMinusNodeMedianMs: round(by.version.medianMs - by.node.medianMs),
      nodeMinusDirectMedianMs: round(by.node.medianMs - by.direct.medianMs),
      linkedPluginMinusCallMedianMs: round(by['call-linked'].medianMs - by.call.medianMs),
      sesMinusCallMedianMs: round(by['call-ses'].medianMs - by.call.medianMs),
      quickjsMinusCallMedianMs: round(by['call-quickjs'].medianMs - by.call.medianMs),
      ...(by['baseline-call']
        ? {
            baselineCallMinusNodeMedianMs: round(by['baseline-call'].medianMs - by.node.medianMs),
            callOverBaselineRatio: round(by.call.medianMs / by['baseline-call'].medianMs, 2),
          }
        : {}),
    };
    return {
      result: {
        runs: opts.runs,
        warmups: opts.warmups,
        interleaved: true,
        node: node,
        commands: results,
        overhead,
        callLog: { calls, events: chain.verified, eventsPerCall: round(chain.verified / calls, 2), chainOk: chain.ok },
      },
      failures,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
    rmSync(join(opts.tmpRoot, `${basename(dir)}-baseline`), { recursive: true, force: true });
    rmSync(join(opts.tmpRoot, `${basename(dir)}-linked`), { recursive: true, force: true });
  }
}
