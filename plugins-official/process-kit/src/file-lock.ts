/** A lock held across processes; `lost` tells whether it was taken from this process while held. */
export interface FileLock {
  release(): Promise<void>;
  lost(): boolean;
}

export interface FileLockOptions {
  /** A lock whose holder stopped refreshing it for this long is taken over (a crashed process). */
  staleMs?: number;
  /** How long to wait for another holder, roughly, before giving up. */
  waitMs?: number;
}

/**
 * Takes `<path>.lock` (a directory, created atomically) for this process, waiting while another
 * process holds it; a lock left by a crashed process goes stale. A lock lost while held (this
 * process stalled past the stale time) is reported through `lost`, never thrown from a timer (the
 * library's default), so the caller refuses its write instead of the process crashing. Throws the
 * library's error when the wait runs out: callers name what was busy.
 */
export async function acquireFileLock(path: string, options: FileLockOptions = {}): Promise<FileLock> {
  let lost = false;
  // Loaded on use: most processes never take a lock.
  const { default: lockfile } = await import('proper-lockfile');
  const release = await lockfile.lock(path, {
    realpath: false,
    lockfilePath: `${path}.lock`,
    stale: options.staleMs ?? 10_000,
    retries: retriesFor(options.waitMs ?? 20_000),
    onCompromised: () => {
      lost = true;
    },
  });
  return { release: () => release().catch(() => undefined), lost: () => lost };
}

/** Backoff from 20 ms up to 250 ms between tries, as many tries as fill about `waitMs`. */
function retriesFor(waitMs: number): { retries: number; factor: number; minTimeout: number; maxTimeout: number } {
  return { retries: Math.max(1, Math.ceil(waitMs / 200)), factor: 1.2, minTimeout: 20, maxTimeout: 250 };
}
