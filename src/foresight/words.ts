import type { Eta, Foresight } from './types.js';

// Foresight in one wording for every surface (docs/foresight.md): the Progress view, `status`
// text and the socket's status say the same words.

/** "2h05m", "45m", "<1m": how long from now. */
export const inWords = (ms: number): string => {
  const m = Math.ceil(Math.max(0, ms) / 60_000);
  if (m < 1) return '<1m';
  if (m < 60) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h${String(m % 60).padStart(2, '0')}m`;
  return `${Math.floor(h / 24)}d${String(h % 24).padStart(2, '0')}h`;
};

const part = (label: string, e: Eta, at: number): string => {
  if (e.remaining === 0) return `${label} done`;
  return e.at === null ? `${label} ${e.unknown ?? 'unknown'}` : `${label} in ${inWords(e.at - at)}`;
};

/** "ETA batch 2 in 45m · phase 3 in 2h05m · all after 3 more draft steps". */
export function etaLine(f: Foresight): string {
  // One reason for every part ("after 3 more draft steps") is said once.
  const open = [f.batch, f.phase, f.pipeline].filter((e): e is Eta => e !== null && e.remaining > 0);
  if (open.length > 1 && open.every((e) => e.at === null && e.unknown !== null && e.unknown === open[0].unknown)) return `ETA ${open[0].unknown}`;
  const parts: string[] = [];
  if (f.batch) parts.push(part(`batch ${f.batch.id}`, f.batch, f.at));
  if (f.phase) parts.push(part(`phase ${f.phase.id}`, f.phase, f.at));
  parts.push(part('all', f.pipeline, f.at));
  return `ETA ${parts.join(' · ')}`;
}

const usd = (n: number): string => `$${n.toFixed(2)}`;

/** "to finish ~$12.40 · at this rate the workspace budget runs out at ch14 draft", or null with nothing to say. */
export function forecastLine(f: Foresight): string | null {
  const parts: string[] = [];
  const c = f.forecast;
  if (c.costToCompleteUsd !== null) parts.push(`to finish ~${usd(c.costToCompleteUsd)}`);
  if (c.runsOut) parts.push(`at this rate the ${c.runsOut.what} runs out at ${c.runsOut.unit} ${c.runsOut.step}`);
  return parts.length ? parts.join(' · ') : null;
}

/** Cells done in the last hour. */
export const lastHour = (f: Foresight): number => f.forecast.perHour[f.forecast.perHour.length - 1] ?? 0;
