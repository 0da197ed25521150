import { previewLines, type BulkPreview } from '../../bulk/preview.js';
import { undoPlanOf, BulkError } from '../../bulk/apply.js';
import { commandShown } from '../../consent.js';
import type { Ledger } from '../../run/journal/ledger.js';
import type { WorkspaceConfig } from '../../pipeline/config/types.js';
import { said, type Decision } from '../store/kit.js';
import type { AgentAction, SupervisorPort } from './types.js';
import type { DrainOutcome, RedriveOutcome } from '../../run/supervisor/redrive.js';

// `:redrive` in the room (docs/redrive.md): the preview as a dialog (j/k scroll it at 80×24),
// y records one named action through the supervisor; `:redrive undo [name]` asks, then reverts
// a named action as one record. Pure: the preview is read by bulk/read.ts, the undo's plan from
// the supervisor's ledger; the effects (agents/effects.ts) call the supervisor.

/** `:redrive undo [name]`: the words after `undo`, or null when the line is a filter. */
export function undoArgs(args: string): { which: string | null } | null {
  const m = /^undo(?:\s+(?:name=)?(\S+))?\s*$/i.exec(args.trim());
  return m ? { which: m[1] ?? null } : null;
}

/** The first launch from a config shows the exact command, as every launch does (consent.ts). */
const consentOf = (p: BulkPreview, ledger: Ledger, sup: Pick<SupervisorPort, 'describeCommand'>, config: WorkspaceConfig): { lines: string[]; cell: { unit: string; step: string } | null } => {
  if (p.action !== 'relaunch' || commandShown(ledger, config)) return { lines: [], cell: null };
  const first = p.cells[0]!;
  const c = sup.describeCommand(first.unit, first.step);
  return { lines: [`First launch from this checkroom.yaml: checkroom will run (agent ${c.agent}, in ${c.cwd}):`, `  ${c.text}`], cell: { unit: first.unit, step: first.step } };
};

/** The preview dialog, or what to say when no cell passes. */
export function planRedrive(p: BulkPreview, ledger: Ledger, sup: Pick<SupervisorPort, 'describeCommand'>, config: WorkspaceConfig): Decision {
  if (p.cells.length === 0) {
    const out = p.excluded.length ? `; ${p.excluded.length} named but left out (${p.excluded[0]!.key}: ${p.excluded[0]!.why})` : '';
    return said(`redrive ${p.filter}: no cell to ${p.action}${out}`, 'warn');
  }
  const consent = consentOf(p, ledger, sup, config);
  const action: AgentAction = { kind: 'redrive', order: { action: p.action, name: p.name, filter: p.filter, cells: p.cells.map((c) => ({ unit: c.unit, step: c.step })) }, consent: consent.cell };
  const lines = [...previewLines(p), ...consent.lines, `One journal record; :redrive undo ${p.name} reverts it whole.`];
  return { ask: { title: `Redrive ${p.name}: ${p.action} ${p.cells.length} cell${p.cells.length === 1 ? '' : 's'}`, lines, pending: { type: 'agents', action } } };
}

/** `:redrive undo [name]`: what the undo gives back, asked first. */
export function planRedriveUndo(ledger: Ledger, which: string | null): Decision {
  let plan;
  try {
    plan = undoPlanOf(ledger, which);
  } catch (err) {
    if (err instanceof BulkError) return said(err.message, 'warn');
    throw err;
  }
  const r = plan.record;
  const what = { relaunch: 'unqueued, their counts back', reset: 'their attempts restored', skip: 'unskipped', hold: 'released' }[r.action];
  const lines = [`${r.name}: ${r.action} of ${r.cells.length} cells (${r.filter})`, `${plan.back.length} cells ${what}: ${plan.back.join(' ') || '(none)'}`];
  if (plan.ran.length) lines.push(`${plan.ran.length} already ran and stay as they are: ${plan.ran.join(' ')}`);
  return { ask: { title: `Undo ${r.name}`, lines, pending: { type: 'agents', action: { kind: 'redrive_undo', which: r.id } } } };
}

/** `:redrive drain`: what started and what the gate refused, in words. */
export function drainWords(d: Pick<DrainOutcome, 'started' | 'refused'>): string {
  if (!d.started.length && !d.refused.length) return 'the relaunch queue is empty';
  const refused = d.refused.length ? `; not launched: ${d.refused.map((r) => `${r.key} (${r.why})`).join(', ')}` : '';
  return `relaunch queue: ${d.started.length} started, the rest as slots free${refused}`;
}

/** What a recorded set action did, in words: the dialog's `y`, and `checkroom redrive --yes` from another terminal. */
export function redriveWords(action: string, r: Pick<RedriveOutcome, 'record' | 'started' | 'refused'>): string {
  const refused = r.refused.length ? `; not launched now: ${r.refused.map((x) => `${x.key} (${x.why})`).join(', ')}` : '';
  const started = action === 'relaunch' ? `: ${r.started.length} started, the rest as slots free${refused}` : '';
  return `${r.record.name}: ${action} ${r.record.cells.length} cells${started}`;
}
