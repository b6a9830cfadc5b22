import { join } from 'node:path';
import { open, type RootDatabase } from 'lmdb';
import { afterEach, describe, expect, it } from 'vitest';
import type { NewEvent } from '../../src/events/envelope.js';
import { LmdbCommits } from '../../src/events/lmdb-commit.js';
import type { Durability } from '../../src/events/log.js';
import { tempProject } from '../helpers/project.js';

// Which way an append is committed (src/events/lmdb-commit.ts): at once on the calling thread when
// it has nobody to share a commit with, batched on lmdb-js's writer thread otherwise.

const roots: RootDatabase[] = [];
afterEach(async () => {
  await Promise.all(roots.splice(0).map((root) => root.close()));
});

/** A real LMDB file whose two ways of committing are counted. */
function countedRoot(): { root: RootDatabase; ways: string[]; path: string } {
  const path = join(tempProject(), 'events.lmdb');
  const root = open({ path, compression: false });
  roots.push(root);
  const ways: string[] = [];
  const sync = root.transactionSync.bind(root);
  const batched = root.transaction.bind(root);
  root.transactionSync = ((write: () => unknown) => (ways.push('at once'), sync(write))) as typeof root.transactionSync;
  root.transaction = ((write: () => unknown) => (ways.push('batched'), batched(write))) as typeof root.transaction;
  return { root, ways, path };
}

const event = (type: string, callId = 'c1'): NewEvent => ({ type, data: { callId } }) as unknown as NewEvent;
const put = (root: RootDatabase, key: string) => () => {
  root.putSync(key, key);
  return key;
};

async function append(commits: LmdbCommits, root: RootDatabase, key: string, type: string, callId?: string) {
  const told: string[] = [];
  const result = await commits.commit(put(root, key), [event(type, callId)], (done) => told.push(done));
  expect(told).toEqual([key]);
  return result;
}

describe('LmdbCommits', () => {
  it('commits a lone call at once, and what it wrote is in the file when the append resolves', async () => {
    const { root, ways, path } = countedRoot();
    const commits = new LmdbCommits(root, 'fsync');
    expect(await append(commits, root, 'request', 'call.requested')).toBe('request');
    expect(await append(commits, root, 'completion', 'call.completed')).toBe('completion');
    expect(await append(commits, root, 'next', 'call.requested', 'c2')).toBe('next');
    expect(ways).toEqual(['at once', 'at once', 'at once']);
    // Another environment of the file (as another process opens it) reads every append.
    const reader = open({ path, compression: false, readOnly: true });
    roots.push(reader);
    expect(['request', 'completion', 'next'].map((key) => reader.get(key))).toEqual(['request', 'completion', 'next']);
  });

  it('batches the appends of concurrent calls, so they share commits, and commits at once again when one is left', async () => {
    const { root, ways } = countedRoot();
    const commits = new LmdbCommits(root, 'fsync');
    await append(commits, root, 'a', 'call.requested', 'a');
    await append(commits, root, 'b', 'call.requested', 'b'); // a was open: nobody else yet, at once
    const both = await Promise.all([
      commits.commit(put(root, 'x'), [event('shadow.decided', 'a')], () => undefined),
      commits.commit(put(root, 'y'), [event('shadow.decided', 'b')], () => undefined),
    ]);
    expect(both).toEqual(['x', 'y']);
    await append(commits, root, 'a-done', 'call.completed', 'a');
    await append(commits, root, 'b-done', 'call.completed', 'b');
    expect(ways).toEqual(['at once', 'at once', 'batched', 'batched', 'batched', 'at once']);
    expect(['x', 'y', 'a-done', 'b-done'].map((key) => root.get(key))).toEqual(['x', 'y', 'a-done', 'b-done']);
  });

  it('keeps durability commit batched (a commit at once would wait for the fsync it does not ask for)', async () => {
    const { root, ways } = countedRoot();
    const commits = new LmdbCommits(root, 'commit' satisfies Durability);
    await append(commits, root, 'request', 'call.requested');
    await append(commits, root, 'completion', 'call.completed');
    expect(ways).toEqual(['batched', 'batched']);
  });

  it('rejects an append whose write throws, writes nothing of it, and commits the next one', async () => {
    const { root, ways } = countedRoot();
    const commits = new LmdbCommits(root, 'fsync');
    const failing = () => {
      throw new Error('the head moved');
    };
    await expect(commits.commit(failing, [event('call.requested')], () => undefined)).rejects.toThrow('the head moved');
    expect(await append(commits, root, 'after', 'call.requested')).toBe('after');
    expect(ways).toEqual(['at once', 'at once']);
    expect(root.get('after')).toBe('after');
  });
});
