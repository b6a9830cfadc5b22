import { mkdirSync } from 'node:fs';
import { registerAuditViews } from '../events/audit-views.js';
import type { EventBus } from '../events/bus.js';
import type { WriterStarted } from '../events/catalog.js';
import { LmdbEventLog } from '../events/lmdb-log.js';
import type { Durability, EventLog } from '../events/log.js';
import { PublishingEventLog } from '../events/publishing-log.js';
import { WriterLog } from '../events/writer-log.js';
import { FactorlyError, messageOf } from './base/errors.js';
import type { Checkpointer } from './checkpointer.js';
import type { ProjectPaths } from './config/paths.js';
import type { ShadowRule } from './contracts/extensions.js';
import type { Lifecycle } from './lifecycle.js';
import type { OrderedSlot } from './slots.js';

export interface KernelLogParts {
  paths: ProjectPaths;
  /** A log given instead of the project's file (tests, dry runs). */
  given?: EventLog;
  durability: Durability;
  lifecycle: Lifecycle;
  bus: EventBus;
  rules: OrderedSlot<ShadowRule>;
  checkpoints: Checkpointer;
  /** What else this writer's record says, asked at its first append. */
  describe: () => Partial<WriterStarted>;
}

/**
 * The event log as the kernel hands it out: the project's file (or the given log), keeping the audit
 * view's and the rules' persisted projections folded; this process recorded as its writer (so a
 * crash is attributed); each stored event published on the bus and seen by the checkpointer. Closed
 * at stop, after the last checkpoint is signed.
 */
export function openKernelLog(parts: KernelLogParts): { log: EventLog; writer: WriterLog } {
  const { lifecycle, checkpoints } = parts;
  const inner = parts.given ?? openProjectLog(parts.paths, parts.durability);
  registerAuditViews(inner);
  for (const rule of parts.rules.list()) if (rule.history) inner.project(rule.history);
  const writer = new WriterLog(inner, undefined, parts.describe);
  lifecycle.onStop('event log', () => writer.close());
  // Stop hooks run in reverse: the last checkpoint is signed before the log closes.
  lifecycle.onStop('checkpoints', () => checkpoints.stop());
  parts.bus.onAny((event) => checkpoints.observe(event));
  return { log: new PublishingEventLog(writer, parts.bus), writer };
}

/**
 * The project's LMDB log, opened for writing. A file that is not a log at all stays the error it is
 * (`LOG_UNREADABLE`, naming the file); anything else that stops it opening for writing (permissions,
 * a read-only mount) says so, so the call that needed it is refused before its tool runs.
 */
function openProjectLog(paths: ProjectPaths, durability: Durability): EventLog {
  try {
    mkdirSync(paths.stateDir, { recursive: true });
    return new LmdbEventLog({ path: paths.logPath, durability });
  } catch (error) {
    if (FactorlyError.isInstance(error)) throw error;
    throw new FactorlyError('LOG_WRITE_FAILED', `cannot open the event log ${paths.logPath} for writing: ${messageOf(error)}`, { cause: error });
  }
}
