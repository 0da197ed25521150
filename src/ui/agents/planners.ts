import { commandShown } from '../../consent.js';
import { actionWord } from '../../plan/action-words.js';
import { budgetStopOf } from '../../run/policy/budget.js';
import { pickLaunches } from '../../run/supervisor/autopilot.js';
import { sanitizeLine } from '../../text/sanitize.js';
import { cellKey, type NextStep } from '../../types.js';
import type { WorkspaceConfig } from '../../pipeline/config/types.js';
import type { AgentAction, SupervisorPort } from './types.js';
import { classCounts, flightState, runStateWords } from './agents.js';
import { operatorOf } from '../store/operator.js';
import { breakerWords } from '../../operator/words.js';
import { goneUpdate, selectedHealth, selectedPartial, selectedPlan } from '../store/selected.js';
import { said, type Ask, type Decision, type Planned } from '../store/kit.js';
import type { AppState } from '../store/types.js';

// The agents slice's decisions as pure functions (docs/architecture.md, A dialog): the store's state and
// what the supervisor answers without I/O (its snapshot, the command it would run, whether a
// session can be continued) in; a message, a dialog, a state change, or a launch to make
// out. Refusals (breaker open, budget, read-only) stay the supervisor's: they come back as
// messages from the effects (agents-effects.ts).

/** What the planners read of the supervisor: answers from its ledger and config, no I/O. */
export interface AgentsRead {
  sup: Pick<SupervisorPort, 'snapshot' | 'describeCommand' | 'continuable'>;
  config: WorkspaceConfig;
}

/** A launch the operator asked for; `why` are lines a dialog shows before the command. */
export interface LaunchRequest {
  unit: string;
  step: string;
  reset?: boolean;
  redo?: boolean;
  why?: string[];
}

const agentsAsk = (title: string, lines: string[], action: AgentAction): Ask => ({ title, lines, pending: { type: 'agents', action } });
const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The exact command is shown once per agents section before checkroom first runs it (consent.ts). */
export const needsConsent = (r: AgentsRead): boolean => !commandShown(r.sup.snapshot().ledger, r.config);

export function consentLines(r: AgentsRead, unit: string, step: string): string[] {
  const p = r.sup.describeCommand(unit, step);
  return [
    `First launch from this checkroom.yaml: checkroom will run (agent ${p.agent}, in ${p.cwd}):`,
    `  ${p.text}`,
    ...(p.resources ? [`  with ${p.resources}`] : []),
    'Shown once per agents section (the journal records it); every launch runs the agent with its own unit, step and output.',
  ];
}

/** `enter` on a plan step: what it launches, or why nothing is launched from here. */
export function planNext(r: AgentsRead, n: NextStep): Planned<LaunchRequest> {
  if (n.unit === null || n.step === null) return said(`${actionWord(n.action)}: not a step an agent runs (${n.reason})`, 'warn');
  const { unit, step } = n;
  const agent = r.config.pipeline.steps.find((s) => s.id === step)?.agent;
  if (!agent || !r.config.agents[agent]) return said(`${unit} ${step}: no agent configured for step ${step} in checkroom.yaml`, 'warn');
  switch (n.action) {
    case 'retry':
    case 'run':
    case 'rebuild_memory':
      return { go: { unit, step } };
    case 'backup_redo':
      return { go: { unit, step, why: [`The half-product of ${unit} ${step} is moved aside first (file.bak.<time>), then the agent starts over.`] } };
    case 'human_review': {
      const cell = r.sup.snapshot().ledger.cells[cellKey(unit, step)];
      const why = [
        `${unit} ${step} was escalated: ${cell?.reason ?? n.reason}`,
        `Its attempts (${cell?.attempts.length ?? 0}) and counters are forgotten (the journal keeps them), then it is launched anew.`,
      ];
      return { go: { unit, step, reset: true, why } };
    }
    case 'decide':
      return said(`${unit} ${step} may be complete: decide in the Partials view (2) — m keeps it, d redoes it`, 'warn');
    default:
      return said(`${unit} ${step}: ${actionWord(n.action)} is not launched from here`, 'warn');
  }
}

/** `enter` in the Plan view: a run in flight opens its log; a queued redo or a step is launched. */
export function planLaunchSelected(r: AgentsRead, s: AppState): Planned<LaunchRequest> {
  const p = selectedPlan(s);
  if (p && 'gone' in p) return { change: goneUpdate(s, 'plan', p.gone) };
  const item = p?.item;
  if (!item) return said('nothing selected', 'warn');
  if (item.kind === 'flight') {
    const text = sanitizeLine(`${item.flight.unit} ${item.flight.step} is in flight (${flightState(item.flight, operatorOf(s))}); x cancels it`);
    return { change: { agents: { ...s.agents, logOpen: true }, message: { text, tone: 'info' } } };
  }
  if (item.kind === 'queued') return { go: { unit: item.redo.unit, step: item.redo.step, redo: true } };
  return planNext(r, item.step);
}

/** The dialog a launch needs (the exact command the first time, what a reset forgets), or null: launch at once. */
export function launchAsk(r: AgentsRead, o: LaunchRequest): Ask | null {
  const consent = needsConsent(r);
  const reset = !!o.reset;
  // A spent budget pauses autopilot and stops retries; a launch by hand may still
  // go, but only after the operator has read that it goes past the limit. It is
  // the supervisor's own decision (budget.ts), launches as well as money, and Enter is the
  // operator's explicit word that the supervisor then needs (overBudget).
  const stop = budgetStopOf(r.sup.snapshot().ledger, r.config.limits);
  const spent = stop?.reason ?? null;
  if (!consent && !reset && !o.why && !spent) return null;
  const over = spent ? [`Budget: ${spent}. This launch spends past it: Enter launches anyway, Esc keeps to the budget.`] : [];
  const p = consent ? null : r.sup.describeCommand(o.unit, o.step);
  const lines = [...over, ...(o.why ?? []), ...(p ? [`checkroom will run: ${p.text}`, ...(p.resources ? [`with ${p.resources}`] : [])] : consentLines(r, o.unit, o.step))];
  const head = reset ? `Reset ${o.unit} ${o.step} and relaunch it` : consent ? `Launch ${o.unit} ${o.step}: the exact command` : `Launch ${o.unit} ${o.step}`;
  const title = spent ? `${head} (budget spent)` : head;
  return agentsAsk(title, lines, { kind: 'launch', unit: o.unit, step: o.step, reset, consent, redo: !!o.redo, overBudget: stop !== null });
}

/** `a`: off, on, or first the command autopilot would run (the redo queue's first, else the plan's first pick). */
export function planAutopilot(r: AgentsRead, s: AppState): Planned<'on' | 'off'> {
  const snap = r.sup.snapshot();
  if (snap.autopilot.on) return { go: 'off' };
  if (!needsConsent(r)) return { go: 'on' };
  const first =
    s.redoQueue[0] ??
    pickLaunches({ plan: s.ws.next, ledger: snap.ledger, config: r.config, inFlight: new Map(), budget: 1, redoHalfProducts: true }).launch[0];
  if (!first) return said('autopilot: nothing runnable now, so no command to show; not turned on', 'warn');
  return {
    ask: agentsAsk('Autopilot: the exact command, before the first launch', consentLines(r, first.unit, first.step), {
      kind: 'autopilot',
      consent: { unit: first.unit, step: first.step },
    }),
  };
}

/** `x`: the selected run, or the only one. */
export function planCancel(s: AppState): Decision {
  const flights = operatorOf(s).runs;
  const p = selectedPlan(s);
  if (p && 'gone' in p) return { change: goneUpdate(s, 'plan', p.gone) };
  const f = p?.item.kind === 'flight' ? p.item.flight : flights.length === 1 ? flights[0] : null;
  if (!f) return said(flights.length === 0 ? 'nothing is running' : 'select a run to cancel (runs are listed first in the Plan view)', 'warn');
  const lines = [
    `${f.unit} ${f.step} (${f.agent}): ${flightState(f, operatorOf(s))}`,
    'Its process group is stopped (TERM, then KILL after the grace period); no retry follows,',
    'and autopilot leaves the cell alone until you launch or reset it. A cancel is not counted as a failure.',
  ];
  return { ask: agentsAsk(`Cancel ${f.unit} ${f.step}`, lines, { kind: 'cancel', key: f.key }) };
}

/** `R`/`H` in Health: reset, hold or release the selected agent's breaker. */
export function planBreaker(config: WorkspaceConfig, s: AppState, op: 'reset' | 'hold'): Decision {
  const p = selectedHealth(s);
  if (p && 'gone' in p) return { change: goneUpdate(s, 'health', p.gone) };
  const item = p?.item;
  if (!item || item.kind !== 'agent') return said('select an agent (Health lists agents and cells by urgency)', 'warn');
  const b = item.breaker;
  const now = `breaker ${item.agent}: ${breakerWords(b, operatorOf(s).at)}; ${b.consecutiveFailures} consecutive failures (threshold ${b.seen ? b.threshold : config.breaker.threshold}), ${b.trips} trips`;
  const agent = item.agent;
  if (op === 'reset')
    return {
      ask: agentsAsk(`Reset breaker ${agent}`, [now, 'Closes it and forgets its consecutive failures: launches of this agent may start at once.'], {
        kind: 'breaker',
        agent,
        op: 'reset',
      }),
    };
  if (b.state === 'held')
    return {
      ask: agentsAsk(`Release breaker ${agent}`, [now, 'Ends the hold: the breaker follows its failures and cooldown again.'], {
        kind: 'breaker',
        agent,
        op: 'release',
      }),
    };
  return {
    ask: agentsAsk(`Hold breaker ${agent} open`, [now, 'No launch of this agent starts until you release it (H again); runs in flight go on.'], {
      kind: 'breaker',
      agent,
      op: 'hold',
    }),
  };
}

/** `Z` in Health: forget the selected cell's attempts and counters. */
export function planResetCell(s: AppState): Decision {
  const p = selectedHealth(s);
  if (p && 'gone' in p) return { change: goneUpdate(s, 'health', p.gone) };
  const item = p?.item;
  if (!item || item.kind !== 'cell') return said('select a cell (Health lists agents and cells by urgency)', 'warn');
  const c = item.cell;
  const l = c.ledger;
  const lines = [
    `${c.unit} ${c.step}: ${l ? runStateWords(l.state) : c.run}, ${plural(c.attempts, 'attempt')}${l && classCounts(l) ? ` (${classCounts(l)})` : ''}`,
    'Forgets its attempts, counters and escalation (the journal keeps the history);',
    'its checkpoint.md cell follows the disk again (done when the marker proves it, in progress on a half-product, not started on nothing).',
  ];
  return { ask: agentsAsk(`Reset the counters of ${c.unit} ${c.step}`, lines, { kind: 'reset_cell', unit: c.unit, step: c.step }) };
}

/** `q` or ctrl-c with runs in flight: ask (cancel, leave, stay); ctrl-c again leaves them. null: no run in flight, quit as usual. */
export function planQuit(r: AgentsRead, s: AppState, ctrlC: boolean): Decision | null {
  const snap = r.sup.snapshot();
  const n = snap.role === 'driver' ? snap.runs.length + snap.waiting.length : 0;
  if (n === 0) return null;
  const d = s.dialog;
  if (d?.pending.type === 'agents' && d.pending.action.kind === 'quit')
    return ctrlC ? { change: { dialog: null, quit: true, agents: { ...s.agents, quitMode: 'leave' } } } : { change: {} };
  const flights = operatorOf(s).runs;
  const lines = [
    ...flights.slice(0, 4).map((f) => `${f.unit} ${f.step}: ${flightState(f, operatorOf(s))}`),
    ...(flights.length > 4 ? [`… and ${flights.length - 4} more`] : []),
    'y/enter: cancel them, then quit (each cell goes back to what it was, or to failed)',
    'l: leave them running and quit (the next checkroom adopts them; the marker decides)',
    'n/esc: stay',
  ];
  return { ask: agentsAsk(`Quit with ${plural(n, 'run')} in flight`, lines, { kind: 'quit', runs: n }) };
}

/** The cell C acts on: the picked partial's, or the picked Plan item's (a run, a queued redo, a step). */
function continueCell(s: AppState): { gone: string } | { unit: string | null; step: string | null } | null {
  if (s.view === 'partials') {
    const p = selectedPartial(s);
    return p && 'gone' in p ? p : (p?.item.file ?? null);
  }
  const p = selectedPlan(s);
  if (!p || 'gone' in p) return p;
  const item = p.item;
  return item.kind === 'flight' ? item.flight : item.kind === 'queued' ? item.redo : { unit: item.step.unit, step: item.step.step };
}

/** C in Partials or Plan: preview resuming the cell's interrupted session on its half-product. */
export function planContinue(r: AgentsRead, s: AppState): Decision {
  const cell = continueCell(s);
  if (cell && 'gone' in cell) return { change: goneUpdate(s, s.view === 'partials' ? 'partials' : 'plan', cell.gone) };
  if (!cell?.unit || !cell.step) return said('select a cell with a half-product (Partials) or a step (Plan)', 'warn');
  const { unit, step } = cell;
  let c: ReturnType<AgentsRead['sup']['continuable']>;
  try {
    c = r.sup.continuable(unit, step);
  } catch (err) {
    return said((err as Error)?.message ?? String(err), 'fail');
  }
  if (!c)
    return said(
      `${unit} ${step}: nothing to continue from (no half-product on disk, or an agent that neither resumes a session nor takes {partial} / {backup}); enter or d starts over`,
      'warn',
    );
  const command = `  ${r.sup.describeCommand(unit, step, { continue: true }).text}`;
  const lines =
    c.mode === 'resume'
      ? [
          `Session ${c.sessionId} is resumed (--resume) with a prompt naming the half-product ${c.halfProduct}:`,
          command,
          'The half-product stays in place for the agent to complete (no backup, no fresh start);',
          'the attempt is journalled and counted against the same caps as any other.',
        ]
      : [
          `A fresh attempt is handed the half-product ${c.halfProduct} ({partial}) and the last error:`,
          command,
          'A copy of the half-product is kept first ({backup}); the original stays in place to be completed;',
          'the attempt is journalled and counted against the same caps as any other.',
        ];
  const title = c.mode === 'resume' ? 'resume its session' : 'hand it the half-product';
  return { ask: agentsAsk(`Continue ${unit} ${step}: ${title}`, lines, { kind: 'continue', unit, step }) };
}
