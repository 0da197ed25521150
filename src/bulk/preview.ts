import { spendPerAttempt } from '../foresight/forecast.js';
import { MIN_SAMPLES, statOf } from '../foresight/stats.js';
import { inWords } from '../foresight/words.js';
import type { Ledger } from '../run/journal/ledger.js';
import { formatMinute } from '../text/local-time.js';
import type { BulkAction } from './events.js';
import type { Excluded, SelectedCell, Selection } from './select.js';

// What a set action will touch, before it does (docs/redrive.md, Preview): the cells and their
// count, what relaunching them is expected to cost and take (foresight's per-step means and
// medians: forecast.ts, stats.ts), and the cells left out with why.

export interface BulkPreview {
  action: BulkAction;
  name: string;
  filter: string;
  cells: SelectedCell[];
  excluded: Excluded[];
  /** Expected money of one attempt of each cell; null with no spend journalled. */
  costUsd: number | null;
  /** Expected agent time, the sum of each step's median run; null when a step has too few samples. */
  runMs: number | null;
}

export function previewOf(sel: Selection, o: { action: BulkAction; name: string; filter: string }, ledger: Ledger | null): BulkPreview {
  const per = ledger ? spendPerAttempt(ledger.costs) : null;
  const spent = ledger !== null && ledger.costs.workspace.attempts > 0;
  let cost = 0;
  let runMs: number | null = 0;
  for (const c of sel.cells) {
    if (per) cost += per(c.step).costUsd;
    const samples = ledger?.durations.steps[c.step] ?? [];
    runMs = runMs !== null && samples.length >= MIN_SAMPLES ? runMs + statOf(c.step, samples).medianMs : null;
  }
  return { ...o, cells: sel.cells, excluded: sel.excluded, costUsd: spent ? cost : null, runMs: sel.cells.length ? runMs : 0 };
}

/** The preview as `checkroom redrive --json` prints it (docs/redrive.md), whoever read it: this process or the driving control room. */
export const previewJson = (p: BulkPreview) => ({
  action: p.action,
  name: p.name,
  filter: p.filter,
  count: p.cells.length,
  costUsd: p.costUsd,
  runMs: p.runMs,
  cells: p.cells.map((c) => ({ unit: c.unit, step: c.step, status: c.status, agent: c.agent, executor: c.executor, lastFailure: c.lastFailure })),
  excluded: p.excluded.map((c) => ({ unit: c.unit, step: c.step, status: c.status, why: c.why })),
});

const VERB: Record<BulkAction, string> = {
  relaunch: 'relaunch (through the launch gate: caps, breakers, budgets)',
  reset: 'reset the counters of',
  skip: 'skip (autopilot and run --next leave them alone)',
  hold: 'hold (nothing starts them until released)',
};

const plural = (n: number, w: string): string => `${n} ${w}${n === 1 ? '' : 's'}`;

/** The preview in lines of plain text (raw workspace text inside: the caller sanitizes). */
export function previewLines(p: BulkPreview): string[] {
  const cost = p.costUsd === null ? 'no spend journalled yet' : `$${p.costUsd.toFixed(2)}`;
  const time = p.runMs === null ? 'unknown (too few runs of a step)' : inWords(p.runMs);
  const lines = [
    `${p.name}: ${VERB[p.action]} ${plural(p.cells.length, 'cell')}`,
    `filter: ${p.filter}`,
    ...(p.action === 'relaunch' ? [`expected cost ${cost} · agent time ${time}`] : []),
  ];
  for (const c of p.cells) {
    const f = c.lastFailure ? ` ${c.lastFailure.class} ${formatMinute(new Date(c.lastFailure.at)).slice(11)}` : '';
    lines.push(`  ${c.key}  ${c.status}${f}  ${c.agent ?? '-'}@${c.executor}`);
  }
  if (p.excluded.length) lines.push(`left out: ${plural(p.excluded.length, 'cell')}`);
  for (const c of p.excluded) lines.push(`  ${c.key}  ${c.why}`);
  return lines;
}
