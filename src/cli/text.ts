import stringWidth from 'string-width';
import type { WorkspaceState } from '../types.js';
import { GLYPH_WORD, glyphsFor } from '../text/glyphs.js';
import { lookOf } from '../text/cell-look.js';
import { sanitizeLine } from '../text/sanitize.js';
import { countsOf } from '../operator/model.js';
import type { OperatorRun } from '../operator/types.js';
import { planOf } from '../operator/plan.js';
import { partialsWords, quotaLine } from '../operator/words.js';
import { NO_OPERATOR_PAUSE, pauseLines, type OperatorPause } from '../operator/pause.js';
import { NO_OPERATOR_QUEUES, queuesLines, type OperatorQueues } from '../operator/queues.js';
import { resetClock } from '../run/quota/gate.js';
import { regressionsLine, stopOfState } from '../state/where-words.js';
import { wrapLine } from '../text/wrap.js';
import type { Foresight } from '../foresight/types.js';
import { etaLine, forecastLine } from '../foresight/words.js';
import { presetOf } from '../pipeline/presets/index.js';
import { bar, columnLabels, fit, nextLine, noUnitsWhy, pad, whereWidth, wrapItems, type TextOptions } from '../text/layout.js';

// Human output of the headless commands: one screen, workspace text sanitized, state
// readable from glyphs and words without colour.

/** The record the state was compared with: checkpoint.md, or a preset's own (gates: the plan). */
const record = (s: WorkspaceState): string => {
  const p = presetOf(s.preset);
  if (!p.has.checkpoint) return s.checkpoint.exists ? sanitizeLine(s.checkpoint.lastUpdate ?? p.words.record) : `no ${p.words.record}`;
  return `checkpoint ${s.checkpoint.exists ? `updated ${sanitizeLine(s.checkpoint.lastUpdate ?? '?')}` : 'missing'}`;
};

/** `runs`: the runs in flight the journal shows (cli/scan-journal.ts), counted as the room counts them. */
export function renderStatus(s: WorkspaceState, o: TextOptions, runs: readonly OperatorRun[] | null = null, foresight: Foresight | null = null, pause: OperatorPause = NO_OPERATOR_PAUSE, queues: OperatorQueues = NO_OPERATOR_QUEUES): string {
  const { paint } = o;
  // The operator model's counts: the header's numbers and words.
  const c = countsOf(s, runs);
  const g = glyphsFor(o.ascii);
  const out: string[] = [];
  // Where the work stopped, and when checkpoint.md says otherwise, what it says.
  const { phase, batch } = stopOfState(s);
  out.push(paint('title', `checkroom · ${sanitizeLine(s.name)}`) + paint('muted', ` (${sanitizeLine(s.pipeline.name)})`));
  out.push(
    `${phase ? `Phase ${phase.id} ${sanitizeLine(phase.name)}` : 'All phases done'}${batch !== null ? ` · Batch ${batch}` : ''}` +
      paint('muted', ` · ${record(s)}`),
  );
  if (s.stoppedAt?.disagreement) out.push(paint('warn', fit(s.stoppedAt.disagreement, o.width)));
  // Wrapped, not cut: every regression named is one to redo (wrapLine escapes the workspace's ids).
  const regressions = regressionsLine(s, (t) => t);
  if (regressions) out.push(...wrapLine(regressions, o.width).map((l) => paint('warn', l)));
  const tally =
    `${c.done}/${c.total} done · ` +
    [
      paint(c.halfProducts + c.suspects ? 'warn' : 'muted', partialsWords(c)),
      paint(c.failed ? 'fail' : 'muted', `${c.failed} failed`),
      paint(c.needsHuman ? 'fail' : 'muted', `${c.needsHuman} needs human`),
      paint('muted', `${c.running} running`),
    ].join(' · ');
  // The bar gives way so the line fits the terminal (80 columns over SSH).
  out.push(`${bar(c.done, c.total, Math.max(8, Math.min(24, o.width - stringWidth(tally) - 1)), o.ascii)} ${tally}`);
  // Foresight (docs/foresight.md): the Progress view's words; wrapped, not cut, so the budget's cell stays named.
  if (foresight && c.done < c.total) out.push(...wrapLine([etaLine(foresight), forecastLine(foresight)].filter(Boolean).join(' · '), o.width).map((l) => paint('muted', l)));
  // One line per account waiting for its quota's reset, Health's words, counted from the scan's clock (docs/quota.md).
  for (const q of foresight?.quota ?? []) if (q.deadline > s.scannedAt) out.push(...wrapLine(quotaLine(q, s.scannedAt, resetClock(q.deadline, s.scannedAt)), o.width).map((l) => paint('warn', l)));
  // Drain and pauses (docs/drain.md): the header's words, then who and how to resume, wrapped.
  for (const l of pauseLines(pause)) out.push(...wrapLine(l, o.width).map((x) => paint('warn', x)));
  // What waits on named actions and redo (docs/redrive.md, docs/redo.md): the header's words, then per name what and how to undo.
  for (const l of queuesLines(queues)) out.push(...wrapLine(l, o.width).map((x) => paint('muted', x)));
  out.push('');
  const phases = s.phases.map((p) => `${p.id} ${sanitizeLine(p.name)} ${p.status === 'done' ? paint('ok', p.status) : p.status === 'in_progress' ? paint('warn', 'in progress') : paint('muted', 'not started')} ${p.done}/${p.total}`);
  out.push(...wrapItems('Phases   ', phases, o.width));
  if (s.batches.length) out.push(...wrapItems('Batches  ', s.batches.map((b) => `${b.id === null ? 'unbatched' : `B${b.id}`} ${b.done}/${b.total}`), o.width));
  out.push('');
  // The matrix: one row per unit, one glyph per step.
  const steps = s.pipeline.steps.map((st) => st.id);
  const colW = 4;
  // Unbounded output (a pipe) shows a long unit name whole; a screen gives it 20 columns.
  const unitW = Math.min(Number.isFinite(o.width) ? 20 : Infinity, Math.max(5, ...s.units.map((u) => sanitizeLine(u).length))) + 1;
  const perRow = Math.max(1, Math.floor((o.width - unitW) / colW));
  const labels = columnLabels(steps);
  out.push(paint('muted', `${pad('', unitW)}${labels.slice(0, perRow).map((l) => pad(l, colW)).join('')}`));
  const byUnit = new Map<string, Map<string, string>>();
  // A blocked cell has its own glyph, as in the control room's matrix.
  for (const cell of s.cells) byUnit.set(cell.unit, (byUnit.get(cell.unit) ?? new Map()).set(cell.step, lookOf(cell)));
  const maxRows = 10;
  for (const u of s.units.slice(0, maxRows)) {
    const row = byUnit.get(u)!;
    out.push(`${pad(fit(sanitizeLine(u), unitW - 1), unitW)}${steps.slice(0, perRow).map((st) => pad(g[row.get(st) as keyof typeof g], colW)).join('')}`);
  }
  if (s.units.length > maxRows) out.push(paint('muted', `… ${s.units.length - maxRows} more units (checkroom status --json for all)`));
  out.push(...wrapItems('legend: ', Object.entries(g).map(([k, v]) => `${v.trim()} ${GLYPH_WORD[k as keyof typeof g]}`), o.width).map((l) => paint('muted', l)));
  out.push('');
  // Every warning the other surfaces list, the todo table's too ("0 warnings" while the todo table had one);
  // half-products are the Partials list's (the summary counted cells while Partials was empty).
  out.push(`${c.halfProducts} half-products · ${c.suspects} suspicious · ${c.discrepancies} ${presetOf(s.preset).has.checkpoint ? 'checkpoint/disk' : 'plan/gate'} discrepancies · ${c.warnings} warnings`);
  out.push(paint('title', 'Next'));
  const plan = planOf(s.next);
  const shown = plan.slice(0, 5);
  for (const n of shown) out.push(`  ${nextLine(n, o, o.width - 2, whereWidth(shown))}`);
  if (plan.length > 5) out.push(paint('muted', `  … ${plan.length - 5} more (checkroom plan)`));
  if (plan.length === 0) out.push(s.units.length === 0 ? paint('warn', `  ${fit(noUnitsWhy(s), o.width - 2)}`) : paint('muted', '  nothing to do'));
  return out.join('\n');
}
