import { retried } from './call-deadlines.js';

/**
 * What a log over a shared stream keeps beside the stream (a JetStream KV bucket, with its object
 * store for values too big for one message; a Map in tests): values by key, of any size. All of it
 * is derived from the stream and checked against the stream when read: a snapshot by its stamp and
 * chain hash (a lost or stale one costs a longer fold), an index entry against the event it points
 * to. Keys are dot-separated tokens of letters, digits, `-`, `_` and `=` (`sideKey` makes a token of
 * anything).
 */
export interface SideStore {
  get(key: string): Promise<Uint8Array | undefined>;
  put(key: string, value: Uint8Array): Promise<void>;
  /** Every key under `prefix` (tokens followed by a dot: `call.<token>.`). */
  keys(prefix: string): Promise<string[]>;
}

/** A token a side key can hold for any text (base64url: letters, digits, `-`, `_`). */
export function sideKey(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64url') || '=';
}

/** A side store in this process's memory: for a stream that brings none (a node then folds the stream from its start) and for tests. */
export class MemorySideStore implements SideStore {
  readonly values = new Map<string, Uint8Array>();

  async get(key: string): Promise<Uint8Array | undefined> {
    return this.values.get(key);
  }

  async put(key: string, value: Uint8Array): Promise<void> {
    this.values.set(key, Uint8Array.from(value));
  }

  async keys(prefix: string): Promise<string[]> {
    return [...this.values.keys()].filter((key) => key.startsWith(prefix));
  }
}

/** `side`, each read asked again while it does not answer, for `timeoutMs` (see `retried`); a write is tried once. */
export function patientSide(side: SideStore, timeoutMs: number): SideStore {
  return {
    get: (key) => retried(() => side.get(key), timeoutMs),
    put: (key, value) => side.put(key, value),
    keys: (prefix) => retried(() => side.keys(prefix), timeoutMs),
  };
}
