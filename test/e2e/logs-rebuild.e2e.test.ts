import { describe, expect, it } from 'vitest';
import { runCli, tempProject } from '../helpers/project.js';

const TOOLS = `tools:
  echo.say:
    type: cli
    command: echo
    args: ["{{text}}"]
    parameters: [{name: text, required: true}]
    shadow: {rate_limit: 100/min}
`;

describe('logs rebuild and the persisted projections', () => {
  it("recomputes the audit view and the rules' projections from seq 1, and the counts stay what they were", () => {
    const root = tempProject({ '.factorly/factorly.yaml': TOOLS });
    for (const text of ['one', 'two', 'three'])
      expect(runCli(['call', 'echo.say', '--text', text], root).status).toBe(0);
    const before = JSON.parse(runCli(['logs', 'stats', '--json'], root).stdout);
    expect(before).toMatchObject({ calls: 3, byStatus: { success: 3 }, chain: { ok: true, scope: 'tail' } });
    const rebuilt = runCli(['logs', 'rebuild', '--json'], root);
    expect(rebuilt.status).toBe(0);
    const report = JSON.parse(rebuilt.stdout);
    expect(report).toMatchObject({ events: before.events, indexes: ['tool', 'agent', 'status', 'iface'] });
    expect(report.projections).toEqual(
      expect.arrayContaining(['stats', 'shadow.rate-limit.buckets', 'shadow.loop.windows']),
    );
    expect(rebuilt.stderr).toContain(`rebuilding: ${before.events} of ${before.events} events`);
    // The same counts; the log holds one event more: the record of the new snapshots' digests.
    const after = JSON.parse(runCli(['logs', 'stats', '--json'], root).stdout);
    expect({ ...after, events: 0, chain: 0 }).toEqual({ ...before, events: 0, chain: 0 });
    expect(after.events).toBe(before.events + 1);
    expect(JSON.parse(runCli(['logs', 'stats', '--verify', '--json'], root).stdout).chain).toMatchObject({
      ok: true,
      scope: 'full',
      verified: before.events + 1,
    });
    // The rate limit still counts every call made before the rebuild.
    expect(runCli(['call', 'echo.say', '--text', 'four', '--json'], root).stdout).toContain('"status":"success"');
    const decided = runCli(
      ['logs', 'show', JSON.parse(runCli(['logs', '--json', '-n', '1'], root).stdout).call_id],
      root,
    ).stdout;
    expect(decided).toContain('within 100/min (96 left)');
  });

  it('refuses a log.durability it does not know, naming the key and the file', () => {
    const root = tempProject({ '.factorly/factorly.yaml': `log: {durability: sometimes}\n${TOOLS}` });
    expect(runCli(['call', 'echo.say', '--text', 'x'], root)).toMatchObject({
      status: 1,
      stderr:
        'Error: config: "log.durability" must be one of fsync, commit, not "sometimes" (.factorly/factorly.yaml:1)\n',
    });
    const commit = tempProject({ '.factorly/factorly.yaml': `log: {durability: commit}\n${TOOLS}` });
    expect(runCli(['call', 'echo.say', '--text', 'x'], commit)).toMatchObject({ status: 0, stdout: 'x\n' });
  });
});
