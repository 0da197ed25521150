import { budgetStopOf } from '../../run/policy/budget.js';
import { operatorOf } from '../store/operator.js';
import { planItems, type PlanItem } from '../store/select.js';
import { healthList } from '../views/health-filter.js';
import { healthKey, planKey } from '../keys/item-keys.js';
import { flightState, type HealthItem } from '../agents/agents.js';
import { consentLines, needsConsent, planNext, type AgentsRead, type LaunchRequest } from '../agents/planners.js';
import { liveWriters, writerOf, writingWhy } from '../agents/live-writers.js';
import { said, type Decision } from '../store/kit.js';
import type { AppState } from '../store/types.js';
import { refusalWords, refusedLines, type Refused } from './words.js';

// enter and x on the marked Plan rows, Z on the marked Health cells (docs/marks.md):
// one preview that lists every marked row and what will happen to it, or why it is refused.
// Each row is decided as the single key decides it (planNext, a flight's state); the launches
// themselves stay the supervisor's, so its budget, breakers, caps and one-writer rule refuse
// there exactly as for one launch.

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

/** Each marked key's first item in the whole (unfiltered) list, in list order. */
function marked<T>(items: readonly T[], keyOf: (t: T) => string, keys: readonly string[]): T[] {
  const want = new Set(keys);
  const seen = new Set<string>();
  return items.filter((t) => {
    const k = keyOf(t);
    if (!want.has(k) || seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

const placeOf = (it: PlanItem): string =>
  it.kind === 'flight' ? `${it.flight.unit} ${it.flight.step}` : it.kind === 'queued' ? `${it.redo.unit} ${it.redo.step}` : `${it.step.unit ?? '-'} ${it.step.step ?? it.step.action}`;

const markedPlan = (s: AppState): PlanItem[] => {
  const m = operatorOf(s);
  return marked(planItems(m.plan, '', s.redoQueue, m.runs), planKey, s.marks.plan);
};

/** The launch one marked Plan row asks for, or why it is not launched. */
function launchOf(r: AgentsRead, s: AppState, it: PlanItem): LaunchRequest | Refused {
  const what = placeOf(it);
  if (it.kind === 'flight') return { what, why: `already ${flightState(it.flight, operatorOf(s))}` };
  const req = it.kind === 'queued' ? { go: { unit: it.redo.unit, step: it.redo.step, redo: true } } : planNext(r, it.step);
  if (!('go' in req)) return { what, why: 'say' in req ? req.say : 'not launched from here' };
  const cell = s.ws.cells.find((c) => c.unit === req.go.unit && c.step === req.go.step);
  const w = cell ? writerOf(liveWriters(s), cell) : null;
  return w && cell ? { what, why: writingWhy(w, cell) } : req.go;
}

/** enter with marks in Plan: one dialog, every marked row launched or refused. */
export function planMarkedLaunch(r: AgentsRead, s: AppState): Decision {
  const items = markedPlan(s);
  if (items.length === 0) return said('nothing marked is in the plan any more', 'warn');
  const launches: LaunchRequest[] = [];
  const refused: Refused[] = [];
  for (const it of items) {
    const l = launchOf(r, s, it);
    if ('what' in l) refused.push(l);
    else launches.push(l);
  }
  if (launches.length === 0) return said(`launch: none of the ${plural(refused.length, 'marked row')} can be launched: ${refused.map(refusalWords).join('; ')}`, 'warn');
  const stop = budgetStopOf(r.sup.snapshot().ledger, r.config.limits);
  const consent = needsConsent(r) ? launches[0] : null;
  const lines = [
    ...(stop ? [`Budget: ${stop.reason}. These launches spend past it: enter launches anyway, esc keeps to the budget.`] : []),
    // The refusals first: a long preview is cut at the terminal's height, and they must be read.
    ...refusedLines(refused),
    ...launches.map((l) => `${l.unit} ${l.step}: ${l.reset ? 'counters reset, then launched anew' : l.redo ? 'queued redo launched' : 'launched'}`),
    ...(consent ? consentLines(r, consent.unit, consent.step) : []),
    'The supervisor still decides each launch (concurrency, caps, breakers, budget); a launch it refuses is said.',
  ];
  return {
    ask: {
      title: `Launch ${plural(launches.length, 'marked step')}${refused.length ? ` (${refused.length} refused)` : ''}`,
      lines,
      pending: {
        type: 'agents',
        action: { kind: 'launches', launches: launches.map((l) => ({ unit: l.unit, step: l.step, reset: !!l.reset })), consent: consent ? { unit: consent.unit, step: consent.step } : null, overBudget: stop !== null, refused },
      },
      marked: 'plan',
    },
  };
}

/** x with marks in Plan: cancel every marked run in flight. */
export function planMarkedCancel(s: AppState): Decision {
  const items = markedPlan(s);
  const keys = items.flatMap((it) => (it.kind === 'flight' ? [it.flight.key] : []));
  const refused = items.filter((it) => it.kind !== 'flight').map((it) => ({ what: placeOf(it), why: 'not running' }));
  if (keys.length === 0) return said(`cancel: none of the ${plural(items.length, 'marked row')} is running`, 'warn');
  const lines = [
    ...refusedLines(refused),
    ...items.flatMap((it) => (it.kind === 'flight' ? [`${placeOf(it)} (${it.flight.agent}): ${flightState(it.flight, operatorOf(s))} → cancelled`] : [])),
    'Each process group is stopped (TERM, then KILL after the grace period); no retry follows. A cancel is not counted as a failure.',
  ];
  return { ask: { title: `Cancel ${plural(keys.length, 'marked run')}`, lines, pending: { type: 'agents', action: { kind: 'cancels', keys, refused } }, marked: 'plan' } };
}

/** Z with marks in Health: reset the counters of every marked cell. */
export function planMarkedReset(s: AppState): Decision {
  const items: HealthItem[] = marked(healthList(operatorOf(s), ''), healthKey, s.marks.health);
  const cells = items.flatMap((it) => (it.kind === 'cell' ? [{ unit: it.cell.unit, step: it.cell.step }] : []));
  const refused = items.flatMap((it) => (it.kind === 'agent' ? [{ what: `agent ${it.agent}`, why: 'an agent, not a cell (R resets its breaker)' }] : []));
  if (cells.length === 0) return said('reset: no marked row is a cell (R resets an agent breaker)', 'warn');
  const lines = [...refusedLines(refused), ...cells.map((c) => `${c.unit} ${c.step}: attempts, counters and escalation forgotten (the journal keeps the history)`)];
  return { ask: { title: `Reset the counters of ${plural(cells.length, 'marked cell')}`, lines, pending: { type: 'agents', action: { kind: 'reset_cells', cells, refused } }, marked: 'health' } };
}
