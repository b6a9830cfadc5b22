import { assert } from '../suite.js';

/** What the code under test answered to one call: its value, its throw (or rejection), or nothing yet. */
export type Answer = { returned: unknown } | { threw: unknown } | { pending: true };

export interface Called<A extends unknown[]> {
  args: A;
  answer: Answer;
}

/** Every call of the watched method and what it answered; `restore` puts the object's own method back. */
export interface Watch<A extends unknown[]> {
  calls: Called<A>[];
  restore(): void;
}

/**
 * Watches `method` of the very object the kernel calls (a rule, a provider): a case must show the
 * kernel reached it, and tell what it answered from what the kernel made of it. A promise's outcome
 * is noted by a handler attached before the kernel's own, so it is known by the time it is used.
 */
export function watchMethod<A extends unknown[]>(
  target: object,
  method: string,
  what: string,
  onCall?: (...args: A) => void,
): Watch<A> {
  const calls: Called<A>[] = [];
  const own = Object.getOwnPropertyDescriptor(target, method);
  const original = (target as Record<string, unknown>)[method] as (...args: A) => unknown;
  assert.equal(typeof original, 'function', `${what} has no ${method}()`);
  function watched(this: unknown, ...args: A): unknown {
    const called: Called<A> = { args, answer: { pending: true } };
    calls.push(called);
    onCall?.(...args);
    let answer: unknown;
    try {
      answer = original.apply(this, args);
    } catch (error) {
      called.answer = { threw: error };
      throw error;
    }
    if (!isThenable(answer)) called.answer = { returned: answer };
    else
      answer.then(
        (returned) => void (called.answer = { returned }),
        (threw: unknown) => void (called.answer = { threw }),
      );
    return answer;
  }
  try {
    Object.defineProperty(target, method, { value: watched, configurable: true, writable: true });
  } catch (error) {
    assert.fail(
      `${what} cannot be watched (its ${method} cannot be wrapped: ${String(error)}), so the suite cannot tell that it was reached`,
    );
  }
  return {
    calls,
    restore: () => {
      if (own) Object.defineProperty(target, method, own);
      else delete (target as Record<string, unknown>)[method];
    },
  };
}

/** An answer as a case's failure message quotes it. */
export function described(answer: Answer): string {
  if ('pending' in answer) return 'it had not answered yet';
  if ('threw' in answer) return `it threw ${String(answer.threw)}`;
  let shown: string;
  try {
    shown = JSON.stringify(answer.returned) ?? String(answer.returned);
  } catch {
    shown = String(answer.returned);
  }
  return `it returned ${shown}`;
}

function isThenable(value: unknown): value is Promise<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as Promise<unknown>).then === 'function';
}
