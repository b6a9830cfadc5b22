import { findOneCall } from '../events/call-tree.js';
import { openCheckpoint } from '../events/checkpoint.js';
import type { EventLog } from '../events/log.js';
import { chainLeaf, verifyInclusion } from '../events/merkle.js';
import { NoteError, type NoteVerifier } from '../events/signed-note.js';
import type { LogTree } from '../events/transparency-tree.js';
import { EdgeOnlyTree } from '../events/tree-edge.js';
import { rebuiltTree } from '../events/tree-rebuild.js';
import type { GivenCheckpoint } from '../events/verify-checkpoints.js';
import type { InclusionProofRecord } from '../events/verify-offline.js';
import { FactorlyError } from '../base/errors.js';
import { signLogCheckpoint } from './checkpoint-sign.js';
import { logKeyPath, publishedVerifierKey } from './log-key.js';
import { existsSync } from 'node:fs';

interface SignedRoot {
  size: number;
  rootHash: Buffer;
  note: string;
}

/**
 * Inclusion proofs of every event of one call, in the tree of a signed checkpoint: the one given
 * (which must match the log), else the newest in the log covering the call, else one signed now.
 * Each proof is checked before it is handed out.
 */
export async function proveCall(
  log: EventLog,
  stateDir: string,
  ref: string,
  given: GivenCheckpoint | undefined,
  verifiers: readonly NoteVerifier[],
): Promise<InclusionProofRecord[]> {
  const callId = await findOneCall(log, ref);
  const events = await log.readCall(callId);
  const newest = Math.max(...events.map((event) => event.seq));
  const tree = await wholeTree(log);
  const signed = given ? givenRoot(given, verifiers, tree) : await coveringRoot(log, stateDir, tree, newest);
  if (signed.size < newest) {
    throw new FactorlyError(
      'USAGE',
      `the checkpoint covers ${signed.size} events, but call ${callId} has events up to seq ${newest}: sign a newer one (factorly logs checkpoint)`,
    );
  }
  return events.map((event) => {
    const proof = tree.inclusionProof(event.seq - 1, signed.size);
    if (!verifyInclusion(event.seq - 1, signed.size, chainLeaf(event.hash), proof, signed.rootHash)) {
      throw new FactorlyError(
        'LOG_CORRUPT',
        `the proof of event ${event.seq} does not verify: run factorly logs verify`,
      );
    }
    return {
      callId,
      seq: event.seq,
      leafIndex: event.seq - 1,
      treeSize: signed.size,
      rootHash: signed.rootHash.toString('hex'),
      eventHash: event.hash,
      proof: proof.map((node) => node.toString('hex')),
      checkpoint: signed.note,
      event,
    };
  });
}

/** The log's tree with every node a proof may need: one a node holds only the right edge of (see `EdgeOnlyTree`) is rebuilt from the events. */
async function wholeTree(log: EventLog): Promise<LogTree> {
  const tree = await log.tree!();
  return tree instanceof EdgeOnlyTree ? rebuiltTree(log.read({ to: tree.size }), tree.origin) : tree;
}

function givenRoot(given: GivenCheckpoint, verifiers: readonly NoteVerifier[], tree: LogTree): SignedRoot {
  let checkpoint;
  try {
    checkpoint = openCheckpoint(given.note, verifiers);
  } catch (error) {
    if (error instanceof NoteError)
      throw new FactorlyError('LOG_UNREADABLE', `checkpoint ${given.name}: ${error.message}`);
    throw error;
  }
  if (
    checkpoint.origin !== tree.origin ||
    checkpoint.size > tree.size ||
    !tree.root(checkpoint.size).equals(checkpoint.rootHash)
  ) {
    throw new FactorlyError(
      'LOG_CORRUPT',
      `checkpoint ${given.name} does not match this log: run factorly logs verify --checkpoint ${given.name}`,
    );
  }
  return { size: checkpoint.size, rootHash: checkpoint.rootHash, note: given.note };
}

async function coveringRoot(log: EventLog, stateDir: string, tree: LogTree, newest: number): Promise<SignedRoot> {
  const last = await log.lastOf('log.checkpointed');
  if (
    last &&
    last.data.size >= newest &&
    last.data.size <= tree.size &&
    tree.root(last.data.size).toString('hex') === last.data.rootHash
  ) {
    return { size: last.data.size, rootHash: Buffer.from(last.data.rootHash, 'hex'), note: last.data.checkpoint };
  }
  // A key kept in a secret backend is the kernel's to open: then the checkpoint is signed on request.
  if (!existsSync(logKeyPath(stateDir)) && publishedVerifierKey(stateDir)) {
    throw new FactorlyError(
      'USAGE',
      `no checkpoint covers seq ${newest} yet: sign one (factorly logs checkpoint), then prove again`,
    );
  }
  const signed = await signLogCheckpoint(log, stateDir);
  return { size: signed.size, rootHash: Buffer.from(signed.rootHash, 'hex'), note: signed.checkpoint };
}
