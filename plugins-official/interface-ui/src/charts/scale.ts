/** The smallest of 2, 4, 6, 8, 10 × 10^k at or above `value`: an even axis top, so its half is a round label. */
export function niceMax(value: number): number {
  if (value <= 2) return 2;
  for (let power = 10 ** (Math.floor(Math.log10(value)) - 1); ; power *= 10) {
    for (const step of [2, 4, 6, 8, 10]) if (step * power >= value) return step * power;
  }
}

/** `share` of `whole` as a percentage with two decimals (SVG attributes). */
export function percent(share: number, whole: number): number {
  if (!(whole > 0)) return 0;
  return Math.round((share / whole) * 10_000) / 100;
}
