import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Where a running UI announces itself to other factorly processes of the same project. */
export function lockPath(stateDir: string): string {
  return join(stateDir, 'ui.json');
}

export interface UiLock {
  pid: number;
  url: string;
}

export function writeLock(stateDir: string, lock: UiLock): void {
  writeFileSync(lockPath(stateDir), `${JSON.stringify(lock)}\n`, { mode: 0o600 });
}

/** Removes the lock if it is still this process's (a second UI may have taken over). */
export function removeLock(stateDir: string, pid = process.pid): void {
  if (readLock(stateDir)?.pid === pid) rmSync(lockPath(stateDir), { force: true });
}

export function readLock(stateDir: string): UiLock | undefined {
  try {
    const lock = JSON.parse(readFileSync(lockPath(stateDir), 'utf8')) as UiLock;
    return typeof lock.pid === 'number' ? lock : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a UI is serving this project now: its lock names a live process. */
export function uiIsRunning(stateDir: string): boolean {
  const lock = readLock(stateDir);
  if (!lock) return false;
  try {
    process.kill(lock.pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
