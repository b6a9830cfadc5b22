import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import type { WriterStarted } from './catalog.js';

/** Calls and sessions that are open, with the writer that opened them, and those writers. */
export interface Inflight {
  calls: { callId: string; writer: string }[];
  sessions: { sessionId: string; writer: string; iface: string }[];
  writers: Map<string, WriterStarted>;
}

/** This process as a writer of the log: who it is, and how another process can tell it has ended. */
export function thisWriter(): WriterStarted {
  const procStart = processStat(process.pid).start;
  return {
    writer: randomUUID(),
    pid: process.pid,
    bootId: bootId(),
    host: hostname(),
    startedAt: new Date(Date.now() - process.uptime() * 1000).toISOString(),
    ...(procStart === undefined ? {} : { procStart }),
  };
}

/**
 * Whether a writer recorded in the log has ended: the machine rebooted since (another boot id),
 * its pid is gone, or the pid now belongs to a process that started at another time. A writer on
 * another host cannot be judged from here and counts as running.
 */
export function writerEnded(writer: WriterStarted): boolean {
  if (writer.host !== hostname()) return false;
  const boot = bootId();
  if (writer.bootId !== 'unknown' && boot !== 'unknown' && writer.bootId !== boot) return true;
  try {
    process.kill(writer.pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
  const { state, start } = processStat(writer.pid);
  // A process that has ended but not been reaped yet (its parent, a guard, was killed with it) answers signal 0.
  if (state === 'Z' || state === 'X') return true;
  return writer.procStart !== undefined && start !== undefined && start !== writer.procStart;
}

function bootId(): string {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || 'unknown';
  } catch {
    return 'unknown';
  }
}

/** Fields 3 (state) and 22 (start time in clock ticks) of /proc/<pid>/stat, after the command name in parentheses. */
function processStat(pid: number): { state?: string; start?: number } {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[19]);
    return { state: fields[0], start: Number.isSafeInteger(ticks) ? ticks : undefined };
  } catch {
    return {};
  }
}
