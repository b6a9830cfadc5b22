import { describe, expect, it } from 'vitest';
import { derivedViews, registerDerivedView } from '../../src/events/derived-views.js';
import type { EventIndex } from '../../src/events/event-index.js';
import type { Projection } from '../../src/events/projection.js';

const counts: Projection<number> = { name: 'views-test.counts', init: () => 0, evolve: (n) => n + 1 };
const byType: EventIndex = { name: 'views-test.type', keys: (event) => [event.type] };

describe('registering derived state (registrar.projection, registrar.index)', () => {
  it("adds a plugin's projection and index after factorly's own; the same one again is accepted", () => {
    registerDerivedView('views-test', counts as Projection<unknown>);
    registerDerivedView('views-test', byType);
    registerDerivedView('views-test', byType);
    const { projections, indexes } = derivedViews();
    expect(projections.map((p) => p.name)).toEqual([
      'dashboard',
      'sessions',
      'agent-activity',
      'standing-approvals',
      'stats',
      'views-test.counts',
    ]);
    expect(indexes.map((i) => i.name)).toEqual(['tool', 'agent', 'status', 'iface', 'views-test.type']);
  });

  it("refuses one without its functions, one under a name of factorly's, and another one under a taken name, naming the plugin", () => {
    expect(() =>
      registerDerivedView('bad', { name: 'bad.half', init: () => 0 } as unknown as Projection<unknown>),
    ).toThrow(
      'plugin "bad" registers index "bad.half": a projection has a name, init and evolve; an index a name and keys',
    );
    expect(() => registerDerivedView('bad', { ...counts, name: 'stats' } as Projection<unknown>)).toThrow(
      `plugin "bad" registers projection "stats", but that is one of factorly's own`,
    );
    expect(() => registerDerivedView('other', { ...byType })).toThrow(
      'plugin "other" registers index "views-test.type", but plugin "views-test" registered another one under that name',
    );
  });
});
