import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { FactorlyError } from '../base/errors.js';
import { ChainChecker, type ChainEntry } from './chain-check.js';
import { openCheckpoint } from './checkpoint.js';
import type { LogCheckpointed } from './catalog.js';
import type { Recorded } from './envelope.js';
import { hashEnvelope } from './hash.js';
import { chainLeaf, CompactRange, verifyInclusion } from './merkle.js';
import type { NoteVerifier } from './signed-note.js';
import {
  checkEmbeddedCheckpoints,
  checkGivenCheckpoints,
  verdictOf,
  type CheckpointResult,
  type Finding,
  type GivenCheckpoint,
  type LogFacts,
} from './verify-checkpoints.js';
import type { LogVerification } from './verify-log.js';
import { announcedKeyOf, type AnnouncedKey } from './writer-keys.js';

/** One line of `factorly logs prove --json`: an event, and where it sits in a signed tree. */
export interface InclusionProofRecord {
  callId?: string;
  seq: number;
  leafIndex: number;
  treeSize: number;
  rootHash: string;
  eventHash: string;
  proof: string[];
  checkpoint: string;
  event?: Recorded;
}

export interface OfflineInput {
  export?: string;
  checkpoints: readonly GivenCheckpoint[];
  proofs: readonly { name: string; text: string }[];
  verifiers: readonly NoteVerifier[];
}

export type OfflineVerification = LogVerification & {
  proofs: { name: string; seq: number; ok: boolean; reason: string }[];
};

/**
 * What an auditor can check with what they were handed and no project: an export (its chain, and
 * its Merkle root at each checkpoint's size, recomputed leaf by leaf), checkpoints (signed by the
 * given key) and inclusion proofs (each event in the tree its checkpoint signed).
 */
export async function verifyOffline(input: OfflineInput): Promise<OfflineVerification> {
  const findings: Finding[] = [];
  const sizes = new Set(input.checkpoints.map((c) => Number(c.note.split('\n')[1])));
  const records = input.proofs.flatMap((file) =>
    parseProofs(file.name, file.text).map((record) => ({ name: file.name, record })),
  );
  const scanned = input.export
    ? await scanExport(input.export, sizes, new Set(records.map(({ record }) => record.seq)))
    : undefined;
  if (scanned?.broken) findings.push(scanned.broken);
  const facts: LogFacts = {
    verified: scanned?.verified ?? 0,
    brokenAt: scanned?.broken?.seq,
    origin: scanned?.embedded[0]?.data.origin,
    roots: scanned?.roots ?? new Map(),
    embedded: scanned?.embedded ?? [],
    writerKeys: scanned?.writerKeys ?? [],
  };
  const checked = scanned
    ? checkGivenCheckpoints(input.checkpoints, input.verifiers, facts)
    : signaturesOnly(input.checkpoints, input.verifiers);
  findings.push(...checked.findings);
  const checkpoints = checked.results;
  // The keys were handed over (--key): those alone are trusted.
  if (scanned) findings.push(...checkEmbeddedCheckpoints(facts, input.verifiers, true));
  const proofs = records.map(({ name, record }) => checkProof(name, record, input.verifiers, scanned?.hashes));
  for (const proof of proofs)
    if (!proof.ok) findings.push({ kind: 'bad-proof', seq: proof.seq, reason: proof.reason, where: proof.name });
  const root = facts.roots.get(facts.verified);
  return {
    ...verdictOf(findings),
    verified: facts.verified,
    events: scanned?.events ?? 0,
    tree: { size: facts.verified, rootHash: root?.toString('hex') ?? '', origin: facts.origin },
    checkpoints,
    proofs,
  };
}

/** Without an export there is nothing to compare a checkpoint with: its signature is all that is checked. */
function signaturesOnly(
  given: readonly GivenCheckpoint[],
  verifiers: readonly NoteVerifier[],
): { results: CheckpointResult[]; findings: Finding[] } {
  const findings: Finding[] = [];
  const results = given.map((checkpoint): CheckpointResult => {
    try {
      const opened = openCheckpoint(checkpoint.note, verifiers);
      return {
        name: checkpoint.name,
        size: opened.size,
        origin: opened.origin,
        status: 'consistent',
        reason: `checkpoint ${checkpoint.name} is signed by the given key`,
      };
    } catch (error) {
      const reason = `checkpoint ${checkpoint.name}: ${(error as Error).message}`;
      findings.push({ kind: 'forged-checkpoint', reason, where: checkpoint.name });
      return { name: checkpoint.name, status: 'unverified', reason };
    }
  });
  return { results, findings };
}

interface ScannedExport {
  verified: number;
  events: number;
  broken?: Finding;
  roots: Map<number, Buffer>;
  embedded: { seq: number; data: LogCheckpointed }[];
  writerKeys: AnnouncedKey[];
  /** Chain hashes by seq, for the proofs to be matched against (only those asked for). */
  hashes: Map<number, string>;
}

async function scanExport(
  path: string,
  sizes: ReadonlySet<number>,
  proven: ReadonlySet<number>,
): Promise<ScannedExport> {
  const lines = createInterface({
    input: createReadStream(path, 'utf8').on('error', () => undefined),
    crlfDelay: Infinity,
  });
  const checker = new ChainChecker();
  const range = new CompactRange();
  const result: ScannedExport = {
    verified: 0,
    events: 0,
    roots: new Map(),
    embedded: [],
    writerKeys: [],
    hashes: new Map(),
  };
  let line = 0;
  let pending: ChainEntry | undefined;
  const judge = (entry: ChainEntry, next: ChainEntry | undefined): boolean => {
    const broken = checker.check(entry, () => next);
    if (broken) {
      result.broken = broken;
      return false;
    }
    const event = entry.event!;
    range.push(chainLeaf(event.hash));
    if (proven.has(event.seq)) result.hashes.set(event.seq, event.hash);
    if (sizes.has(event.seq)) result.roots.set(event.seq, range.root());
    if (event.type === 'log.checkpointed') result.embedded.push({ seq: event.seq, data: event.data });
    const announced = announcedKeyOf(event);
    if (announced) result.writerKeys.push(announced);
    return true;
  };
  try {
    for await (const text of lines) {
      line += 1;
      if (text.trim() === '') continue;
      result.events += 1;
      const entry = parseLine(text, line, path);
      if (line === 1 && entry.event && entry.event.seq !== 1)
        throw new FactorlyError(
          'LOG_UNREADABLE',
          `export ${path} starts at seq ${entry.event.seq}: checking it needs every event from seq 1 (export without --since)`,
        );
      if (pending && !judge(pending, entry)) break;
      pending = entry;
    }
    if (pending && !result.broken) judge(pending, undefined);
  } catch (error) {
    if (FactorlyError.isInstance(error)) throw error;
    throw new FactorlyError('LOG_UNREADABLE', `cannot read export ${path}: ${(error as Error).message}`);
  }
  result.verified = checker.verified;
  result.roots.set(0, new CompactRange().root());
  // The leaves are those of the intact events only: their root is the tree of what verified.
  result.roots.set(checker.verified, range.root());
  return result;
}

function parseLine(text: string, line: number, path: string): ChainEntry {
  try {
    return { event: JSON.parse(text) as Recorded };
  } catch {
    return { key: line, error: `line ${line} of the export ${path} is not valid JSON` };
  }
}

function parseProofs(name: string, text: string): InclusionProofRecord[] {
  try {
    return text
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as InclusionProofRecord);
  } catch {
    throw new FactorlyError('LOG_UNREADABLE', `proof ${name} is not the JSON that factorly logs prove --json prints`);
  }
}

function checkProof(
  name: string,
  record: InclusionProofRecord,
  verifiers: readonly NoteVerifier[],
  hashes: Map<number, string> | undefined,
) {
  const fail = (reason: string) => ({
    name,
    seq: record.seq,
    ok: false,
    reason: `proof ${name}, seq ${record.seq}: ${reason}`,
  });
  let checkpoint;
  try {
    checkpoint = openCheckpoint(record.checkpoint, verifiers);
  } catch (error) {
    return fail(`its checkpoint: ${(error as Error).message}`);
  }
  if (checkpoint.size !== record.treeSize || checkpoint.rootHash.toString('hex') !== record.rootHash)
    return fail('its tree size or root hash is not the one its checkpoint signed');
  if (record.event) {
    const { hash, ...rest } = record.event;
    if (record.event.seq !== record.seq || hash !== record.eventHash || hashEnvelope(rest) !== hash)
      return fail('the event it carries does not match its hash');
  }
  if (record.leafIndex !== record.seq - 1) return fail(`leaf index ${record.leafIndex} is not seq ${record.seq} - 1`);
  if (hashes?.has(record.seq) && hashes.get(record.seq) !== record.eventHash)
    return fail('the export holds another event at this seq');
  const path = Array.isArray(record.proof) ? record.proof.map((node) => Buffer.from(String(node), 'hex')) : [];
  if (!verifyInclusion(record.leafIndex, record.treeSize, chainLeaf(record.eventHash), path, checkpoint.rootHash))
    return fail('the inclusion proof does not lead to the signed root');
  return {
    name,
    seq: record.seq,
    ok: true,
    reason: `event ${record.seq} is in the tree of ${record.treeSize} events its checkpoint signed`,
  };
}
