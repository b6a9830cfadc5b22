import { messageOf } from '../base/errors.js';
import { derivedViews, type DerivedView } from '../events/derived-views.js';
import type { Projection } from '../events/projection.js';
import type { Kernel } from '../kernel/kernel.js';

/** What `logs verify` re-derives, and why a plugin's own could not be loaded (then only factorly's are). */
export interface VerificationViews {
  views: DerivedView[];
  unloaded?: string;
}

/**
 * The derived state a kernel's logs keep: factorly's own projections and indexes, those the loaded
 * plugins registered, and the rules' histories (rate-limit buckets, loop windows).
 */
export function kernelViews(kernel: Kernel): DerivedView[] {
  const { projections, indexes } = derivedViews();
  const histories = kernel.shadow
    .ruleList()
    .flatMap((rule) => (rule.history ? [rule.history as Projection<unknown>] : []));
  return [...projections, ...indexes, ...histories];
}

/**
 * The derived state to re-derive, from a kernel booted for it (its plugins' projections and the
 * rules' histories). A project whose config or plugins do not load is still verified: factorly's own
 * are, and the rest are reported unchecked.
 */
export async function verificationViews(boot: () => Promise<Kernel>): Promise<VerificationViews> {
  try {
    return { views: kernelViews(await boot()) };
  } catch (error) {
    const { projections, indexes } = derivedViews();
    return { views: [...projections, ...indexes], unloaded: messageOf(error) };
  }
}
