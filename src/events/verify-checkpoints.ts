import { openCheckpoint, type Checkpoint } from './checkpoint.js';
import type { LogCheckpointed } from './catalog.js';
import { verifyConsistency } from './merkle.js';
import { NoteError, type NoteVerifier } from './signed-note.js';
import type { LogTree } from './transparency-tree.js';
import { keysAt, type AnnouncedKey } from './writer-keys.js';

/** Something `logs verify` found wrong, named for the person reading it. */
export interface Finding {
  kind: string;
  reason: string;
  seq?: number;
  /** The index or checkpoint it is about. */
  where?: string;
}

/** A verification's verdict from what it found: verified when nothing, tampered otherwise, the first finding first. */
export function verdictOf(findings: Finding[]): {
  ok: boolean;
  status: 'verified' | 'tampered';
  firstBad?: Finding;
  findings: Finding[];
} {
  return {
    ok: findings.length === 0,
    status: findings.length === 0 ? 'verified' : 'tampered',
    firstBad: findings[0],
    findings,
  };
}

/** A checkpoint handed to `logs verify --checkpoint`, by where it came from. */
export interface GivenCheckpoint {
  name: string;
  note: string;
}

export interface CheckpointResult {
  name: string;
  size?: number;
  origin?: string;
  status: 'consistent' | 'inconsistent' | 'unverified' | 'unreadable';
  reason: string;
  /** The RFC 9162 consistency proof from its size to the log's, as checked (hex). */
  proof?: string[];
}

/** What the checks below know about the log as it really is (recomputed from its events). */
export interface LogFacts {
  /** Events found intact from seq 1. */
  verified: number;
  /** Where the chain stops holding, when it does (checkpoints beyond it cannot be judged on their own). */
  brokenAt?: number;
  origin?: string;
  /** Roots recomputed from the chain: at the log's size and at each checkpoint's. */
  roots: Map<number, Buffer>;
  /** The stored tree, when it matches the recomputed root (then its proofs can be produced). */
  tree?: LogTree;
  /** The log's own checkpoints (`log.checkpointed`), for naming where a rewrite begins. */
  embedded: { seq: number; data: LogCheckpointed }[];
  /** The verifier keys the log's writers announced (`writer.started`), in seq order. */
  writerKeys?: AnnouncedKey[];
}

/**
 * Checks one checkpoint kept outside the log against the log: signed by a trusted key, of this
 * log, not larger than it (else the log was cut or rolled back), and with the root the log really
 * has at its size (else the history it signed was rewritten), proven by a consistency proof.
 */
export function checkGivenCheckpoints(
  given: readonly GivenCheckpoint[],
  verifiers: readonly NoteVerifier[],
  facts: LogFacts,
): { results: CheckpointResult[]; findings: Finding[] } {
  // Smallest first: the largest one that holds bounds where a rewrite found by a larger one begins.
  const order = given
    .map((checkpoint, i) => ({ checkpoint, i, size: Number(checkpoint.note.split('\n')[1]) }))
    .sort((a, b) => a.size - b.size);
  const results: CheckpointResult[] = new Array(given.length);
  const findings: Finding[] = [];
  let holds = 0;
  for (const { checkpoint, i } of order) {
    const { result, finding } = checkGivenCheckpoint(checkpoint, verifiers, facts, holds);
    results[i] = result;
    if (finding) findings.push(finding);
    if (result.status === 'consistent') holds = Math.max(holds, result.size ?? 0);
  }
  return { results, findings };
}

function checkGivenCheckpoint(
  given: GivenCheckpoint,
  verifiers: readonly NoteVerifier[],
  facts: LogFacts,
  holds: number,
): { result: CheckpointResult; finding?: Finding } {
  let checkpoint: Checkpoint;
  try {
    checkpoint = openCheckpoint(given.note, verifiers);
  } catch (error) {
    const reason = `checkpoint ${given.name}: ${(error as Error).message}`;
    const status =
      error instanceof NoteError && /known key|does not verify/.test(error.message) ? 'unverified' : 'unreadable';
    return {
      result: { name: given.name, status, reason },
      finding: status === 'unverified' ? { kind: 'forged-checkpoint', reason, where: given.name } : undefined,
    };
  }
  const { size, origin } = checkpoint;
  const base = { name: given.name, size, origin };
  const fail = (kind: string, reason: string, seq?: number) => ({
    result: { ...base, status: 'inconsistent' as const, reason },
    finding: { kind, reason, seq, where: given.name },
  });
  if (facts.origin !== undefined && !originsOf(facts).has(origin)) {
    return fail(
      'other-log',
      `checkpoint ${given.name} is of log ${origin}, but this file holds log ${facts.origin}: the log was replaced by another one`,
    );
  }
  if (size > facts.verified && facts.brokenAt !== undefined) {
    return {
      result: {
        ...base,
        status: 'inconsistent',
        reason: `the chain breaks at seq ${facts.brokenAt}, inside the ${size} events checkpoint ${given.name} covers`,
      },
    };
  }
  if (size > facts.verified) {
    return fail(
      'rolled-back',
      `checkpoint ${given.name} covers ${size} events, but the log holds ${facts.verified} intact: events ${facts.verified + 1}–${size} were removed (cut, or the file rolled back to an earlier copy)`,
      facts.verified + 1,
    );
  }
  const actual = facts.roots.get(size);
  if (size > 0 && actual && !actual.equals(checkpoint.rootHash)) {
    const where =
      holds > 0
        ? `between seq ${holds + 1} and ${size} (a checkpoint of ${holds} events still holds)`
        : `at or before seq ${size}`;
    return fail(
      'rewritten',
      `the first ${size} events are not those checkpoint ${given.name} signed: history was rewritten ${where}`,
      holds + 1,
    );
  }
  const proof = consistency(facts, size, checkpoint.rootHash);
  if (proof === 'failed')
    return fail(
      'rewritten',
      `the consistency proof from checkpoint ${given.name} (size ${size}) to the log does not verify`,
    );
  return {
    result: {
      ...base,
      status: 'consistent',
      reason: `checkpoint ${given.name} (${size} events) is consistent with the log (${facts.verified} events)`,
      proof: proof?.map((node) => node.toString('hex')),
    },
  };
}

/**
 * The names this log went by: its own, and those its own checkpoints carry. A log moved to another
 * engine (`logs migrate`) is named anew there, and its checkpoints from before name it as it was.
 */
function originsOf(facts: LogFacts): Set<string> {
  return new Set([facts.origin!, ...facts.embedded.map(({ data }) => data.origin)]);
}

/** The proof from `size` to the log's size, checked against the recomputed root; undefined when there is nothing to prove. */
function consistency(facts: LogFacts, size: number, root: Buffer): Buffer[] | 'failed' | undefined {
  const newRoot = facts.roots.get(facts.verified);
  if (size === 0 || !facts.tree || !newRoot) return undefined;
  const proof = facts.tree.consistencyProof(size, facts.verified);
  return verifyConsistency(size, facts.verified, root, newRoot, proof) ? proof : 'failed';
}

function safeRoot(tree: LogTree | undefined, size: number): Buffer | undefined {
  try {
    return tree?.root(size);
  } catch {
    return undefined;
  }
}

/**
 * The log's own checkpoints: each must carry a valid signature (by a key the auditor trusts or, not
 * `restricted` to those, one a writer of the log announced before it, when any key is known) and
 * match the log at its size, or events before it were changed after it was signed.
 */
export function checkEmbeddedCheckpoints(
  facts: LogFacts,
  trusted: readonly NoteVerifier[],
  restricted = false,
): Finding[] {
  const findings: Finding[] = [];
  for (const { seq, data } of facts.embedded) {
    const verifiers = keysAt(seq, trusted, facts.writerKeys ?? [], restricted);
    if (verifiers.length > 0) {
      try {
        const opened = openCheckpoint(data.checkpoint, verifiers);
        if (opened.size !== data.size || opened.rootHash.toString('hex') !== data.rootHash)
          throw new NoteError('its fields do not match the signed note');
      } catch (error) {
        findings.push({
          kind: 'forged-checkpoint',
          seq,
          reason: `the log's checkpoint at seq ${seq} is not valid: ${(error as Error).message}`,
        });
        continue;
      }
    }
    const root = facts.roots.get(data.size) ?? safeRoot(facts.tree, data.size);
    const proof = root && consistency(facts, data.size, Buffer.from(data.rootHash, 'hex'));
    if (root && (root.toString('hex') !== data.rootHash || proof === 'failed')) {
      findings.push({
        kind: 'rewritten',
        seq,
        reason: `the log's checkpoint at seq ${seq} signed ${data.size} events that no longer match: they were changed after it was signed`,
      });
    }
  }
  return findings;
}
