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
  const procStart = processStart(process.pid);
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
  const start = processStart(writer.pid);
  return writer.procStart !== undefined && start !== undefined && start !== writer.procStart;
}

function bootId(): string {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || 'unknown';
  } catch {
    return 'unknown';
  }
}

/** Field 22 of /proc/<pid>/stat (start time in clock ticks), after the command name in parentheses. */
function processStart(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[19]);
    return Number.isSafeInteger(ticks) ? ticks : undefined;
  } catch {
    return undefined;
  }
}
