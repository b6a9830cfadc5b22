import type { Recorded } from './envelope.js';
import { auditProjection, type AuditEntry, type AuditState } from './projections/audit.js';

/**
 * Folds a live stream of events and hands back each call once it completes or is found
 * interrupted (for `logs --follow`
 * and live views). Completed calls are dropped from memory.
 */
export class CallAssembler {
  private state: AuditState = auditProjection.init();

  add(event: Recorded): AuditEntry | undefined {
    this.state = auditProjection.evolve(this.state, event);
    if (event.type !== 'call.completed' && event.type !== 'call.interrupted') return undefined;
    const entry = this.state.byId.get(event.data.callId);
    this.state.byId.delete(event.data.callId);
    this.state.order = this.state.order.filter((id) => id !== event.data.callId);
    return entry;
  }
}
