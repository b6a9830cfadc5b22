/**
 * Durations kept as counts per logarithmic bin, so percentiles can be read from any union of time
 * buckets (bins add up) without keeping every sample. Bin `i` holds [R^i, R^(i+1)) ms with R = 2^(1/8):
 * a percentile read back is within ±4.5 % of the true sample. Durations under 1 ms share bin -1 (read as 0).
 */
export type DurationBins = Map<number, number>;

const BINS_PER_DOUBLING = 8;
const ZERO_BIN = -1;

export function binOf(durationMs: number): number {
  if (!(durationMs >= 1)) return ZERO_BIN;
  return Math.floor(Math.log2(durationMs) * BINS_PER_DOUBLING);
}

/** The value a bin stands for: its geometric middle. */
function valueOf(bin: number): number {
  return bin === ZERO_BIN ? 0 : 2 ** ((bin + 0.5) / BINS_PER_DOUBLING);
}

export function addDuration(bins: DurationBins, durationMs: number): void {
  const bin = binOf(durationMs);
  bins.set(bin, (bins.get(bin) ?? 0) + 1);
}

export function mergeBins(into: DurationBins, from: DurationBins): void {
  for (const [bin, count] of from) into.set(bin, (into.get(bin) ?? 0) + count);
}

/** The q-quantile (0 < q ≤ 1) of the durations counted, by the nearest-rank method; undefined when empty. */
export function quantile(bins: DurationBins, q: number): number | undefined {
  let total = 0;
  for (const count of bins.values()) total += count;
  if (total === 0) return undefined;
  const rank = Math.max(1, Math.ceil(q * total));
  let seen = 0;
  for (const bin of [...bins.keys()].sort((a, b) => a - b)) {
    seen += bins.get(bin)!;
    if (seen >= rank) return valueOf(bin);
  }
  return undefined;
}
