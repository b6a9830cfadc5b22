import { describe, expect, it } from 'vitest';
import type { Recorded } from '../../src/events/envelope.js';
import type { EventMap, EventType, StandingOffer } from '../../src/events/catalog.js';
import { EVENT_VERSIONS } from '../../src/events/catalog.js';
import { fold } from '../../src/events/projection.js';
import {
  activeApprovals,
  standingApproval,
  standingOfferIn,
  standingProjection,
} from '../../src/events/projections/standing.js';

const T0 = Date.parse('2026-03-01T10:00:00Z');
const MIN = 60_000;
let seq = 0;

function at<T extends EventType>(ms: number, type: T, data: EventMap[T]): Recorded {
  seq += 1;
  const at = new Date(T0 + ms).toISOString();
  return { seq, id: `e${seq}`, type, v: EVENT_VERSIONS[type], at, data, prevHash: '', hash: '' } as Recorded;
}

const OFFER: StandingOffer = {
  kind: 'window',
  scope: '["window","deploy","a"]',
  forMs: 30 * MIN,
  label: 'for 30 minutes',
  agentId: 'a',
};

/** A call asked with `offer`, answered `approved`, then granted as `grant` says (the offer, unless changed). */
function story(
  callId: string,
  ms: number,
  approved: boolean,
  grant: Partial<StandingOffer & { rule: string }> = {},
): Recorded[] {
  return [
    at(ms, 'shadow.decided', {
      callId,
      rule: 'confirm',
      plugin: 'shadow',
      decision: 'confirm',
      reason: 'r',
      facts: { standing: { ...OFFER } },
    }),
    at(ms, 'confirm.resolved', { callId, channel: 'ui', approved, by: 'ana' }),
    at(ms, 'approval.granted', {
      approvalId: `id-${callId}`,
      callId,
      rule: 'confirm',
      tool: 'deploy',
      channel: 'ui',
      by: 'ana',
      ...OFFER,
      ...grant,
    }),
  ];
}

describe('the standing approvals fold', () => {
  it('counts a grant only when it answers the offer its call was made and the person approved', () => {
    const state = fold(
      [
        ...story('ok', 0, true),
        ...story('declined', 0, false),
        ...story('wider', 0, true, { forMs: 300 * MIN }),
        ...story('elsewhere', 0, true, { scope: '["window","deploy","b"]' }),
        ...story('other-rule', 0, true, { rule: 'mine' }),
        // Granted with no confirm decision offering anything: a forged grant covers nothing.
        at(0, 'approval.granted', {
          approvalId: 'forged',
          callId: 'none',
          rule: 'confirm',
          tool: 'deploy',
          channel: 'ui',
          ...OFFER,
        }),
      ],
      standingProjection,
    );
    expect(activeApprovals(state, T0 + MIN).map((a) => a.approvalId)).toEqual(['id-ok']);
    expect(activeApprovals(state, T0)[0]).toMatchObject({
      agentId: 'a',
      untilMs: T0 + 30 * MIN,
      by: 'ana',
      label: 'for 30 minutes',
    });
    expect(state.asked.size).toBe(0);
  });

  it('covers its scope until its window ends or it is revoked, and forgets what expired', () => {
    const events = [...story('first', 0, true), ...story('second', 10 * MIN, true)];
    let state = fold(events, standingProjection);
    expect(standingApproval(state, 'confirm', OFFER.scope, T0 + 35 * MIN)?.approvalId).toBe('id-second');
    expect(standingApproval(state, 'confirm', OFFER.scope, T0 + 40 * MIN)).toBeUndefined();
    expect(standingApproval(state, 'mine', OFFER.scope, T0 + MIN)).toBeUndefined();
    events.push(at(11 * MIN, 'approval.revoked', { approvalId: 'id-second', by: 'cli' }));
    state = fold(events, standingProjection);
    expect(standingApproval(state, 'confirm', OFFER.scope, T0 + 20 * MIN)?.approvalId).toBe('id-first');
    expect(standingApproval(state, 'confirm', OFFER.scope, T0 + 35 * MIN)).toBeUndefined();
    // A grant folded after the first one expired drops it from the state.
    events.push(...story('third', 60 * MIN, true));
    expect([...fold(events, standingProjection).approvals.keys()]).toEqual(['id-third']);
  });

  it('forgets a call that ended without a grant, and reads only a well-formed offer', () => {
    const state = fold(
      [
        at(0, 'shadow.decided', { callId: 'c', rule: 'confirm', plugin: 'shadow', decision: 'confirm', reason: 'r' }),
        at(0, 'call.completed', {
          callId: 'c',
          status: 'blocked',
          exitCode: 1,
          durationMs: 1,
        } as EventMap['call.completed']),
      ],
      standingProjection,
    );
    expect(state.asked.size).toBe(0);
    expect(standingOfferIn({ standing: { ...OFFER } })).toEqual(OFFER);
    for (const bad of [
      { ...OFFER, kind: 'forever' },
      { ...OFFER, forMs: -1 },
      { ...OFFER, scope: 3 },
      { ...OFFER, sha: 1 },
      'yes',
    ])
      expect(standingOfferIn({ standing: bad as never })).toBeUndefined();
  });
});
