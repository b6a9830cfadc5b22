import { registerAuditViews } from '../events/audit-views.js';
import type { EventBus } from '../events/bus.js';
import type { WriterStarted } from '../events/catalog.js';
import type { EventLog } from '../events/log.js';
import { PublishingEventLog } from '../events/publishing-log.js';
import { WriterLog } from '../events/writer-log.js';
import type { Checkpointer } from '../evidence/checkpointer.js';
import { openConfiguredLog, type ConfiguredLogParts } from './log-engines.js';
import type { ShadowRule } from '../contracts/extensions.js';
import type { OrderedRegistry } from './registries.js';

export interface KernelLogParts extends ConfiguredLogParts {
  /** A log given instead of the project's (tests, dry runs). */
  given?: EventLog;
  bus: EventBus;
  rules: OrderedRegistry<ShadowRule>;
  checkpoints: Checkpointer;
  /** What else this writer's record says, asked at its first append. */
  describe: () => Partial<WriterStarted> | Promise<Partial<WriterStarted>>;
}

/**
 * The event log as the kernel hands it out: the project's (see `openConfiguredLog`) or the given one, keeping the audit
 * view's and the rules' persisted projections folded; this process recorded as its writer (so a
 * crash is attributed); each stored event published on the bus and seen by the checkpointer. The
 * kernel closes it at stop, last (after the last checkpoint is signed), however late it was opened.
 */
export function openKernelLog(parts: KernelLogParts): { log: EventLog; writer: WriterLog } {
  const { checkpoints } = parts;
  const inner = parts.given ?? openConfiguredLog(parts);
  registerAuditViews(inner);
  for (const rule of parts.rules.list()) if (rule.history) inner.project(rule.history);
  const writer = new WriterLog(inner, undefined, parts.describe);
  parts.bus.onAny((event) => checkpoints.observe(event));
  return { log: new PublishingEventLog(writer, parts.bus), writer };
}
