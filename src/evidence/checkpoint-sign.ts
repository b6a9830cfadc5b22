import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { signCheckpoint } from '../events/checkpoint.js';
import type { EventLog } from '../events/log.js';
import { FactorlyError } from '../base/errors.js';
import { loadLogKey, type LogSigner } from './log-key.js';

export interface SignedCheckpoint {
  origin: string;
  size: number;
  rootHash: string;
  /** The signed note. */
  checkpoint: string;
  /** Where it was written under `.factorly/checkpoints/`. */
  file: string;
  /** The verifier key that checks it (`factorly logs key`). */
  verifierKey: string;
}

/** `.factorly/checkpoints/`: one file per checkpoint, named by tree size so they sort in order. */
export function checkpointsDir(stateDir: string): string {
  return join(stateDir, 'checkpoints');
}

export function checkpointFileName(size: number): string {
  return `checkpoint-${String(size).padStart(12, '0')}.txt`;
}

/**
 * Signs the log's tree as it is now, writes the checkpoint file and records `log.checkpointed`.
 * The key (`.factorly/log.key` unless `keyFor` gives another) is made on first use, named after the
 * log's origin.
 */
export async function signLogCheckpoint(
  log: EventLog,
  stateDir: string,
  keyFor: (origin: string) => Promise<LogSigner> = async (origin) => loadLogKey(stateDir, origin)!,
): Promise<SignedCheckpoint> {
  if (!log.tree)
    throw new FactorlyError('LOG_CORRUPT', 'this event log keeps no Merkle tree, so it cannot be checkpointed');
  const tree = await log.tree();
  const signer = await keyFor(tree.origin);
  const root = tree.root();
  const checkpoint = signCheckpoint({ origin: tree.origin, size: tree.size, rootHash: root }, signer);
  const dir = checkpointsDir(stateDir);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, checkpointFileName(tree.size));
  writeFileSync(file, checkpoint);
  const signed = {
    origin: tree.origin,
    size: tree.size,
    rootHash: root.toString('hex'),
    checkpoint,
    file,
    verifierKey: signer.verifierKey,
  };
  await log.append([
    {
      type: 'log.checkpointed',
      data: { size: signed.size, rootHash: signed.rootHash, origin: signed.origin, checkpoint },
    },
  ]);
  return signed;
}
