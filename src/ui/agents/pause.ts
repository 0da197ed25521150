import { parsePauseTarget, type PauseScope } from '../../run/policy/pause.js';
import { pauseBy, type PauseRequest } from '../../run/supervisor/pause-action.js';
import { operatorOf } from '../store/operator.js';
import { selectedHealth, selectedPlan } from '../store/selected.js';
import type { AppState } from '../store/types.js';

// What `p`, `:drain`, `:undrain`, `:pause` and `:resume` ask of the supervisor (docs/drain.md),
// as pure planners: the state in, a request or the words of a refusal out. The driver
// applies the request (supervisor.setPause); the decision each launch asks is pause.ts's.

/** The cell (Plan) or agent (Health; a cell row there pauses its cell) `p` acts on, or why none. */
export function pauseTargetOf(s: AppState): { scope: Extract<PauseScope, 'cell' | 'agent'>; target: string } | string {
  if (s.view === 'plan') {
    const p = selectedPlan(s);
    if (!p || 'gone' in p) return 'select a step or a run in Plan to pause or resume its cell';
    const it = p.item;
    const c = it.kind === 'flight' ? it.flight : it.kind === 'queued' ? it.redo : { unit: it.step.unit, step: it.step.step };
    if (!c.unit || !c.step) return 'this Plan entry names no cell: pick a step';
    return { scope: 'cell', target: `${c.unit}/${c.step}` };
  }
  if (s.view === 'health') {
    const p = selectedHealth(s);
    if (!p || 'gone' in p) return 'select an agent or a cell in Health to pause or resume it';
    return p.item.kind === 'agent' ? { scope: 'agent', target: p.item.agent } : { scope: 'cell', target: p.item.cell.key };
  }
  return 'p pauses the selected cell in Plan or agent in Health';
}

/** `p`: pause the selected cell or agent, or resume it when it is paused. */
export function togglePauseRequest(s: AppState): PauseRequest | string {
  const t = pauseTargetOf(s);
  if (typeof t === 'string') return t;
  const paused = operatorOf(s).pause.paused.some((r) => r.scope === t.scope && r.target === t.target);
  return { ...t, on: !paused, by: pauseBy('p') };
}

/** `:drain`, `:undrain`, `:pause [all|cell=u/s|agent=a|executor=e]`, `:resume [...]`. */
export function commandPauseRequest(what: 'drain' | 'undrain' | 'pause' | 'resume', args: string): PauseRequest | string {
  if (what === 'drain' || what === 'undrain') {
    if (args.trim()) return `:${what} takes no argument (got "${args.trim()}")`;
    return { scope: 'drain', target: null, on: what === 'drain', by: pauseBy(`:${what}`) };
  }
  const t = parsePauseTarget(args);
  if (typeof t === 'string') return t;
  return { scope: t.scope, target: t.target, on: what === 'pause', by: pauseBy(`:${what}`) };
}
