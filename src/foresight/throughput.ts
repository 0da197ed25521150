// Cells done per hour over the last hours (docs/foresight.md, Throughput), from the journal's
// successful exits: a marker written by hand, outside any run, is not counted.

export const HOUR_MS = 3_600_000;
/** Hours the sparkline shows. */
export const HOURS = 12;

/** Counts per hour, oldest first; the last hour ends at `at`. */
export function perHour(done: readonly number[], at: number, hours = HOURS): number[] {
  const out = new Array<number>(hours).fill(0);
  const from = at - hours * HOUR_MS;
  for (let i = done.length - 1; i >= 0; i--) {
    const t = done[i];
    if (t <= from) break;
    if (t > at) continue;
    out[Math.min(hours - 1, Math.floor((t - from) / HOUR_MS))]++;
  }
  return out;
}

const BLOCKS = '▁▂▃▄▅▆▇█';
// Under --ascii the block elements would all draw as '#' (charset.ts): a ramp of ASCII marks instead.
const RAMP = '_.-:=+*#';

/** One character per value, scaled to the largest; a zero is the lowest mark. */
export function sparkline(values: readonly number[], ascii: boolean): string {
  const marks = ascii ? RAMP : BLOCKS;
  const max = Math.max(0, ...values);
  return values.map((v) => (v <= 0 || max === 0 ? marks[0] : marks[Math.max(1, Math.round((v / max) * (marks.length - 1)))])).join('');
}
