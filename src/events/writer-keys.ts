import type { Recorded } from './envelope.js';
import { verifierFromKey, type NoteVerifier } from './signed-note.js';

/** A verifier key a writer announced in its `writer.started`, at the seq that announced it. */
export interface AnnouncedKey {
  seq: number;
  key: string;
}

/** The key an event announces, when it is a writer's record that carries one (v2). */
export function announcedKeyOf(event: Recorded): AnnouncedKey | undefined {
  if (event.type !== 'writer.started') return undefined;
  const key = (event.data as { verifierKey?: unknown }).verifierKey;
  return typeof key === 'string' ? { seq: event.seq, key } : undefined;
}

/**
 * The keys a checkpoint recorded at `seq` may be signed with. An auditor who named keys (`--key`,
 * `log.trusted_keys`: `restricted`) accepts those alone; otherwise the project's own key and every
 * key a writer of this log announced before the checkpoint. A key that does not parse announces nothing.
 */
export function keysAt(
  seq: number,
  trusted: readonly NoteVerifier[],
  announced: readonly AnnouncedKey[],
  restricted: boolean,
): NoteVerifier[] {
  if (restricted) return [...trusted];
  const keys = [...trusted];
  const seen = new Set(trusted.map((verifier) => `${verifier.name}+${verifier.keyId}`));
  for (const { seq: at, key } of announced) {
    if (at >= seq) break;
    try {
      const verifier = verifierFromKey(key);
      const id = `${verifier.name}+${verifier.keyId}`;
      if (!seen.has(id)) keys.push(verifier);
      seen.add(id);
    } catch {
      // not a key: announces nothing
    }
  }
  return keys;
}
