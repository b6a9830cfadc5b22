import assert from 'node:assert/strict';

type Body = () => void | Promise<void>;

/**
 * The test runner a contract suite registers its cases with: vitest's `describe`/`it`/`afterAll`,
 * or node:test's `describe`/`it`/`after`. Suites assert with node:assert, so they need nothing else.
 */
export interface TestApi {
  describe(name: string, body: () => void): unknown;
  it(name: string, body: Body): unknown;
  /** vitest */
  afterAll?(body: Body): unknown;
  /** node:test */
  after?(body: Body): unknown;
}

/** Runs `body` once the suite's cases have run (whichever runner it is). */
export function afterSuite(api: TestApi, body: Body): void {
  if (api.afterAll) api.afterAll(body);
  else if (api.after) api.after(body);
}

/** `actual` has every key of `expected` with the same value (deeply; arrays element by element); other keys are ignored. */
export function like(actual: unknown, expected: unknown, message?: string): void {
  assert.deepStrictEqual(picked(actual, expected), expected, message);
}

const MISSING = '<missing>';

function picked(actual: unknown, expected: unknown): unknown {
  if (Array.isArray(expected) && Array.isArray(actual))
    return actual.map((item, i) => (i < expected.length ? picked(item, expected[i]) : item));
  if (!isPlain(expected) || !isPlain(actual)) return actual;
  const out: Record<string, unknown> = {};
  for (const [key, wanted] of Object.entries(expected))
    out[key] = key in actual ? picked(actual[key], wanted) : wanted === undefined ? undefined : MISSING;
  return out;
}

function isPlain(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Waits until `check` stops throwing (an observed fact arrives), or fails with its last error after `timeoutMs`. */
export async function eventually(check: () => void | Promise<void>, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await check();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

/**
 * Settles with `promise` or fails after `ms` with an assertion naming `what`: a case that waits on
 * the code under test says what it was waiting for, instead of ending at the runner's timeout.
 */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new assert.AssertionError({ message: `${what} did not settle within ${ms} ms` })),
      ms,
    );
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Settles `promise` (its value or its error) or fails after `ms`: a contract method that never lets go would hang its caller. */
export function settled<T>(promise: Promise<T>, ms: number, what: string): Promise<{ value?: T; error?: unknown }> {
  return within(
    promise.then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    ),
    ms,
    what,
  );
}

export { assert };
