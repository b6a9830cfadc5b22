import { afterEach, describe, expect, it } from 'vitest';
import type { PersonAnswer, PersonChannel, PersonRequest } from 'factorly';
import { MemoryEventLog } from 'factorly/events';
import { plugin as quickjs } from '@factorly/plugin-engine-quickjs';
import { plugin as code } from '@factorly/plugin-provider-code';
import { plugin as shadow } from '@factorly/plugin-shadow';
import type { Kernel } from '../../src/kernel/kernel.js';
import type { CallOutcome } from '../../src/contracts/gateway.js';
import { recheckDecisions } from '../../src/evidence/shadow-recheck.js';
import { instantProvider } from '../helpers/instant.js';
import { eventsOf, startTestKernel } from '../helpers/kernel.js';
import { contribute, decisions } from '../helpers/shadow.js';

const CONFIG = `tools:
  deploy: {type: instant, parameters: [{name: env}], shadow: {confirm: {for: 30m, per: agent}}}
  guarded: {type: instant, shadow: {confirm: true}}
  factorly.code: {shadow: {confirm: {once_per: source, for: 24h}}}
`;
const HOUR = 3_600_000;
const script = (tag: string): string =>
  `async function run() { const r = await factorly.call("guarded", {}); return "${tag} " + r.output; }`;

/** A person at a channel: answers each request from a list of answers (the last one repeats) and keeps what it was asked. */
class Person implements PersonChannel {
  readonly name = 'person';
  readonly kinds = ['confirm'] as const;
  readonly asked: PersonRequest[] = [];

  constructor(private readonly answers: PersonAnswer[]) {}

  async ask(request: PersonRequest): Promise<PersonAnswer> {
    this.asked.push(request);
    return this.answers.length > 1 ? this.answers.shift()! : this.answers[0];
  }

  tools(): string[] {
    return this.asked.splice(0).map((request) => request.tool);
  }
}

let kernel: Kernel | undefined;
afterEach(async () => kernel?.stop());

/** A kernel whose log's clock runs `offset.ms` from now: an approval recorded with it set back is an old one. */
async function start(person: Person, offset: { ms: number }) {
  const log = new MemoryEventLog(() => new Date(Date.now() + offset.ms));
  const started = await startTestKernel(
    CONFIG,
    [instantProvider, shadow, quickjs, code, contribute('test-person', { people: [person] })],
    undefined,
    log,
  );
  kernel = started.kernel;
  const run = (tool: string, params: Record<string, string>, agentId = 'agent-a'): Promise<CallOutcome> =>
    started.kernel.pipeline.call({ tool, params, iface: 'mcp', agentId });
  const recheck = () =>
    recheckDecisions(log, started.kernel.shadow.ruleList(), { current: (name) => started.kernel.registry.get(name) });
  return { log, run, recheck };
}

describe('standing approvals', () => {
  it('runs an approved script again without asking within its window, asks for a changed one and after the window, and its inner calls always ask', async () => {
    const person = new Person([{ action: 'accept', standing: 'source', by: 'ana' }]);
    const offset = { ms: -25 * HOUR };
    const { log, run, recheck } = await start(person, offset);
    // Approved "for this script" 25 hours ago: the window of a day has passed since.
    expect((await run('factorly.code', { code: script('old') })).status).toBe('success');
    expect(person.tools()).toEqual(['factorly.code', 'guarded']);
    offset.ms = 0;

    const first = await run('factorly.code', { code: script('new') });
    expect(first.output).toContain('new');
    const offer = person.asked[0];
    expect(offer).toMatchObject({ kind: 'confirm', standing: [{ kind: 'source', label: 'for this script (1 day)' }] });
    expect(person.tools()).toEqual(['factorly.code', 'guarded']);
    const again = await run('factorly.code', { code: script('new') });
    expect(again.status).toBe('success');
    // The script's own confirmation stands; the call it makes still asks.
    expect(person.tools()).toEqual(['guarded']);
    const allowed = await decisions(log, again.callId);
    expect(allowed.find((d) => d.rule === 'confirm')).toMatchObject({
      decision: 'allow',
      reason: expect.stringMatching(
        /^tool "factorly\.code" approved for this script \(1 day\) by ana \(standing approval [0-9a-f]{12}, until /,
      ),
    });
    await run('factorly.code', { code: script('changed') });
    await run('factorly.code', { code: script('old') });
    expect(person.tools()).toEqual(['factorly.code', 'guarded', 'factorly.code', 'guarded']);

    const granted = (await eventsOf(log)).filter((e) => e.type === 'approval.granted').map((e) => e.data);
    const sha = (await log.readCall(first.callId)).find((e) => e.type === 'call.requested')!.data;
    expect(granted[1]).toMatchObject({
      callId: first.callId,
      rule: 'confirm',
      tool: 'factorly.code',
      kind: 'source',
      sha: (sha as { sourceSha: string }).sourceSha,
      forMs: 24 * HOUR,
      label: 'for this script (1 day)',
      by: 'ana',
      channel: 'person',
    });
    const report = await recheck();
    expect(report.mismatches).toEqual([]);
    expect(report.checked).toBe(10);
  });

  it('approves a tool for 30 minutes for the agent that asked only, and replay --check re-derives it', async () => {
    const person = new Person([{ action: 'accept', standing: 'window' }, { action: 'decline' }]);
    const { log, run, recheck } = await start(person, { ms: 0 });
    expect((await run('deploy', { env: 'prod' })).status).toBe('success');
    expect(person.asked[0]).toMatchObject({
      standing: [{ kind: 'window', label: 'for 30 minutes', forMs: 1_800_000 }],
    });
    person.tools();
    expect((await run('deploy', { env: 'staging' })).status).toBe('success');
    expect(person.tools()).toEqual([]);
    const other = await run('deploy', { env: 'prod' }, 'agent-b');
    expect(other).toMatchObject({ status: 'blocked', error: 'tool "deploy": confirmation declined' });
    expect(person.tools()).toEqual(['deploy']);
    // A tool confirmed without a standing option offers none, and asks every time.
    await run('guarded', {});
    await run('guarded', {});
    expect(person.asked.map((request) => (request.kind === 'confirm' ? request.standing : 'question'))).toEqual([
      undefined,
      undefined,
    ]);
    const granted = (await eventsOf(log)).filter((e) => e.type === 'approval.granted');
    expect(granted).toHaveLength(1);
    expect(granted[0].data).toMatchObject({ kind: 'window', agentId: 'agent-a', forMs: 1_800_000 });
    expect((await recheck()).mismatches).toEqual([]);
  });
});
