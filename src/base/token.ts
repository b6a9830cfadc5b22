/**
 * A typed injection token. Tokens are `Symbol.for` symbols so that two copies of the SDK (the
 * CLI's own and one pulled in by an installed plugin) agree on identity.
 */
export type Token<T> = symbol & { readonly __type?: T };

/** The only way to make a token. `id` is `'<owner>.<name>'`. */
export function createToken<T>(id: `${string}.${string}`): Token<T> {
  return Symbol.for(`factorly:${id}`) as Token<T>;
}
