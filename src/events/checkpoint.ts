import { HASH_BYTES } from './merkle.js';
import { NoteError, openNote, signNote, type NoteSigner, type NoteVerifier } from './signed-note.js';

/**
 * A C2SP tlog-checkpoint (https://c2sp.org/tlog-checkpoint): the note text `<origin>\n<tree size>\n
 * <base64 root hash>\n` (extension lines are not written, and kept opaque when read), signed as a
 * signed-note. It fixes the log's Merkle tree at one size; anything that disagrees with a
 * checkpoint kept elsewhere was changed after it was signed.
 */
export interface Checkpoint {
  origin: string;
  size: number;
  rootHash: Buffer;
  extensions: string[];
}

export function checkpointText(checkpoint: Omit<Checkpoint, 'extensions'>): string {
  return `${checkpoint.origin}\n${checkpoint.size}\n${checkpoint.rootHash.toString('base64')}\n`;
}

export function signCheckpoint(checkpoint: Omit<Checkpoint, 'extensions'>, signer: NoteSigner): string {
  return signNote(checkpointText(checkpoint), signer);
}

/** Parses a checkpoint's note text (already verified, or read for its size before verifying). */
export function parseCheckpointText(text: string): Checkpoint {
  const lines = text.split('\n');
  if (lines.pop() !== '' || lines.length < 3)
    throw new NoteError('not a checkpoint: expected an origin, a tree size and a root hash, one per line');
  const [origin, size, root, ...extensions] = lines as [string, string, string, ...string[]];
  if (origin === '') throw new NoteError('not a checkpoint: the origin line is empty');
  if (!/^(0|[1-9][0-9]*)$/.test(size) || !Number.isSafeInteger(Number(size)))
    throw new NoteError(`not a checkpoint: the tree size ${JSON.stringify(size)} is not a decimal number`);
  const rootHash = Buffer.from(root, 'base64');
  if (rootHash.length !== HASH_BYTES || rootHash.toString('base64') !== root)
    throw new NoteError('not a checkpoint: the root hash is not 32 bytes of base64');
  if (extensions.some((line) => line === '')) throw new NoteError('not a checkpoint: an extension line is empty');
  return { origin, size: Number(size), rootHash, extensions };
}

/** Verifies a signed checkpoint with the trusted keys and parses it. */
export function openCheckpoint(
  note: string,
  verifiers: readonly NoteVerifier[],
): Checkpoint & { verifiedBy: string[] } {
  const { text, verifiedBy } = openNote(note, verifiers);
  return { ...parseCheckpointText(text), verifiedBy };
}
