import type { TestApi } from '../../src/testing/suite.js';

type Body = () => void | Promise<void>;

/** What each case of a contract suite did: its failure's message, or `passed`. */
export type SuiteOutcomes = Map<string, string>;

export const PASSED = 'passed';

/**
 * Runs a contract suite outside the test runner, against a subject a test planted (a broken
 * implementation), and reports how each case ended: a suite that passes a broken implementation
 * tests nothing. Cases are named by their `it` name, prefixed by the names of enclosing
 * `describe`s after the first (the suite's own).
 */
export async function runSuite(
  register: (api: TestApi) => void,
  only?: (name: string) => boolean,
): Promise<SuiteOutcomes> {
  const cases: [string, Body][] = [];
  const after: Body[] = [];
  const path: string[] = [];
  register({
    describe(name, body) {
      path.push(name);
      body();
      path.pop();
    },
    it(name, body) {
      cases.push([[...path.slice(1), name].join(' › '), body]);
    },
    afterAll(body) {
      after.push(body);
    },
  });
  const outcomes: SuiteOutcomes = new Map();
  try {
    for (const [name, body] of cases) {
      if (only && !only(name)) continue;
      try {
        await body();
        outcomes.set(name, PASSED);
      } catch (error) {
        outcomes.set(name, error instanceof Error ? error.message : String(error));
      }
    }
  } finally {
    for (const body of after) await body();
  }
  return outcomes;
}
