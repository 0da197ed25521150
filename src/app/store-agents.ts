import { commandShown, commandShownEvent } from '../consent.js';
import { pickLaunches } from '../run/supervisor-autopilot.js';
import { cellKey, type NextStep } from '../types.js';
import type { AgentAction, AgentsOptions } from './agents-types.js';
import { breakerWords, classCounts, flightItems, flightState, type HealthItem } from './agents.js';
import type { PlanItem } from './select.js';
import { seeFilesNow, type Seen } from './confirm-guard.js';
import { outputOf } from '../run/writers.js';
import { goneUpdate, selectedHealth as pickHealth, selectedPartial as pickPartial, selectedPlan as pickPlan } from './selected.js';
import { storeKit, type KitDeps } from './store-kit.js';

// The store's supervisor actions (issue "Launch agents from the plan"). Each one that
// changes what agents do asks first when it is dangerous (cancel, breaker, reset); the
// first launch from a config shows the exact command (consent recorded in the journal,
// shared with `checkroom run`). Refusals (breaker open, budget, read-only) are messages.

/** The cell a Plan item names, for C (continue). */
const continueTarget = (item: PlanItem | null): { unit: string | null; step: string | null } | null =>
  !item ? null : item.kind === 'flight' ? item.flight : item.kind === 'queued' ? item.redo : { unit: item.step.unit, step: item.step.step };

interface Deps extends KitDeps {
  opts: AgentsOptions;
}

// eslint-disable-next-line max-lines-per-function -- one closure over the agents slice's state and its effects; issue 9 item 3 splits slices into pure planners plus an effects table
export function createAgents({ set, get, opts, track }: Deps) {
  const { sup, config } = opts;
  const kit = storeKit({ set, get, track });
  // Unit, step and agent names come from the workspace: every message here is sanitized.
  const { sayClean: say, fail } = kit;
  const agentOf = (step: string): string | undefined => config.pipeline.steps.find((s) => s.id === step)?.agent;
  const needsConsent = (): boolean => !commandShown(sup.snapshot().ledger, config);

  const ask = (title: string, lines: string[], action: AgentAction, seen?: Seen[]): void => kit.ask(title, lines, { type: 'agents', action }, Date.now(), seen);
  /** A relaunch confirms against the output as it was shown (issue 8 item 1: confirm-guard.ts). */
  const outputSeen = (unit: string, step: string): Seen[] => {
    const path = get().ws.cells.find((c) => c.unit === unit && c.step === step)?.path ?? outputOf(config.pipeline, unit, step);
    return path === null ? [] : seeFilesNow(get().ws.root, [{ unit, step, path }]);
  };

  const consentLines = (unit: string, step: string): string[] => {
    const p = sup.describeCommand(unit, step);
    return [
      `First launch from this checkroom.yaml: checkroom will run (agent ${p.agent}, in ${p.cwd}):`,
      `  ${p.text}`,
      'Shown once per agents section (the journal records it); every launch runs the agent with its own unit, step and output.',
    ];
  };

  // undefined: the picked item left the list; the refusal is already said (issue 8 item 2).
  const selectedPlan = (): PlanItem | null | undefined => {
    const p = pickPlan(get());
    if (p && 'gone' in p) return void set(goneUpdate(get(), 'plan', p.gone));
    return p?.item ?? null;
  };
  const continueLines = (unit: string, step: string, c: { sessionId: string; halfProduct: string }): string[] => [
    `Session ${c.sessionId} is resumed (--resume) with a prompt naming the half-product ${c.halfProduct}:`,
    `  ${sup.describeCommand(unit, step, { continue: true }).text}`,
    'The half-product stays in place for the agent to complete (no backup, no fresh start);',
    'the attempt is journalled and counted against the same caps as any other.',
  ];

  const selectedHealth = (): HealthItem | null | undefined => {
    const p = pickHealth(get());
    if (p && 'gone' in p) return void set(goneUpdate(get(), 'health', p.gone));
    return p?.item ?? null;
  };

  // A queued redo leaves the queue when its launch event arrives (agents-feed.ts), not
  // before: a refused launch (budget, breaker) keeps the operator's request.
  const doLaunch = (unit: string, step: string, reset: boolean, quiet = false): void => {
    if (!quiet) say(`launching ${unit} ${step}…`);
    // Resolves when the cell's last attempt ends (minutes): events tell the story, so only a
    // refusal (breaker open, budget used, already running) becomes a message here.
    sup.launch(unit, step, { reason: 'launched from the control room', reset }).catch((err: Error) => (quiet ? undefined : fail(err)));
  };

  const requestLaunch = (unit: string, step: string, o: { reset?: boolean; redo?: boolean; why?: string[] } = {}): void => {
    const consent = needsConsent();
    const reset = !!o.reset;
    if (!consent && !reset && !o.why) return doLaunch(unit, step, false);
    const lines = [...(o.why ?? []), ...(consent ? consentLines(unit, step) : [`checkroom will run: ${sup.describeCommand(unit, step).text}`])];
    const title = reset ? `Reset ${unit} ${step} and relaunch it` : consent ? `Launch ${unit} ${step}: the exact command` : `Launch ${unit} ${step}`;
    ask(title, lines, { kind: 'launch', unit, step, reset, consent, redo: !!o.redo }, outputSeen(unit, step));
  };

  const launchNext = (n: NextStep): void => {
    if (n.unit === null || n.step === null) return say(`${n.action}: not a step an agent runs (${n.reason})`, 'warn');
    const { unit, step } = n;
    if (!agentOf(step) || !config.agents[agentOf(step)!]) return say(`${unit} ${step}: no agent configured for step ${step} in checkroom.yaml`, 'warn');
    switch (n.action) {
      case 'retry':
      case 'run':
      case 'rebuild_memory':
        return requestLaunch(unit, step);
      case 'backup_redo':
        return requestLaunch(unit, step, { why: [`The half-product of ${unit} ${step} is moved aside first (file.bak.<time>), then the agent starts over.`] });
      case 'human_review': {
        const cell = sup.snapshot().ledger.cells[cellKey(unit, step)];
        return requestLaunch(unit, step, {
          reset: true,
          why: [
            `${unit} ${step} was escalated: ${cell?.reason ?? n.reason}`,
            `Its attempts (${cell?.attempts.length ?? 0}) and counters are forgotten (the journal keeps them), then it is launched anew.`,
          ],
        });
      }
      case 'decide':
        return say(`${unit} ${step} may be complete: decide in the Partials view (2) — m keeps it, d redoes it`, 'warn');
      default:
        return say(`${unit} ${step}: ${n.action} is not launched from here`, 'warn');
    }
  };

  const turnAutopilotOn = (): void => {
    // The queue first, so the first tick already takes it in the operator's order.
    launchQueued();
    track(
      sup.setAutopilot(true).then(() => {
        say('autopilot on: launching within concurrency, caps and breakers (a turns it off)', 'ok');
        launchQueued();
      }, fail),
    );
  };

  /**
   * Redo entries the operator queued go first when autopilot runs. The supervisor's own
   * loop launches them, from its plan and in queue order: one launcher, so concurrency,
   * caps and dependencies hold exactly as for its other picks.
   */
  const launchQueued = (): void => sup.prefer(get().redoQueue);

  /** Supervisor calls hold no `busy`: the disk actions of triage and recovery do. */
  const act = (work: () => Promise<void>, done: string): void =>
    kit.act(null, async () => {
      await work();
      say(done, 'ok');
    });

  return {
    launchSelected(): void {
      const item = selectedPlan();
      if (item === undefined) return;
      if (!item) return say('nothing selected', 'warn');
      if (item.kind === 'flight') {
        set((st) => ({ agents: { ...st.agents, logOpen: true } }));
        return say(`${item.flight.unit} ${item.flight.step} is in flight (${flightState(item.flight, get().agents)}); x cancels it`);
      }
      if (item.kind === 'queued') return requestLaunch(item.redo.unit, item.redo.step, { redo: true });
      return launchNext(item.step);
    },

    toggleAutopilot(): void {
      const snap = sup.snapshot();
      if (snap.autopilot.on) return act(() => sup.setAutopilot(false), 'autopilot off: runs in flight go on; nothing new starts');
      if (!needsConsent()) return turnAutopilotOn();
      const s = get();
      const first =
        s.redoQueue[0] ??
        pickLaunches({ plan: s.ws.next, ledger: snap.ledger, config, inFlight: new Map(), held: new Set(), budget: 1, redoHalfProducts: true }).launch[0];
      if (!first) return say('autopilot: nothing runnable now, so no command to show; not turned on', 'warn');
      ask('Autopilot: the exact command, before the first launch', consentLines(first.unit, first.step), { kind: 'autopilot', consent: { unit: first.unit, step: first.step } });
    },

    requestCancel(): void {
      const s = get();
      const flights = flightItems(s.agents);
      const item = selectedPlan();
      if (item === undefined) return;
      const f = item?.kind === 'flight' ? item.flight : flights.length === 1 ? flights[0] : null;
      if (!f) return say(flights.length === 0 ? 'nothing is running' : 'select a run to cancel (runs are listed first in the Plan view)', 'warn');
      ask(
        `Cancel ${f.unit} ${f.step}`,
        [
          `${f.unit} ${f.step} (${f.agent}): ${flightState(f, s.agents)}`,
          'Its process group is stopped (TERM, then KILL after the grace period); no retry follows,',
          'and autopilot leaves the cell alone until you launch or reset it. A cancel is not counted as a failure.',
        ],
        { kind: 'cancel', key: f.key },
      );
    },

    requestBreaker(op: 'reset' | 'hold'): void {
      const item = selectedHealth();
      if (item === undefined) return;
      if (!item || item.kind !== 'agent') return say('select an agent (the Health view lists agents first)', 'warn');
      const v = item.ledger?.view;
      const now = `breaker ${item.agent}: ${breakerWords(item.ledger)}; ${v?.consecutiveFailures ?? 0} consecutive failures (threshold ${v?.threshold ?? config.breaker.threshold}), ${v?.trips ?? 0} trips`;
      if (op === 'reset') {
        return ask(`Reset breaker ${item.agent}`, [now, 'Closes it and forgets its consecutive failures: launches of this agent may start at once.'], { kind: 'breaker', agent: item.agent, op: 'reset' });
      }
      if (v?.state === 'held') return ask(`Release breaker ${item.agent}`, [now, 'Ends the hold: the breaker follows its failures and cooldown again.'], { kind: 'breaker', agent: item.agent, op: 'release' });
      ask(`Hold breaker ${item.agent} open`, [now, 'No launch of this agent starts until you release it (H again); runs in flight go on.'], { kind: 'breaker', agent: item.agent, op: 'hold' });
    },

    requestResetCell(): void {
      const item = selectedHealth();
      if (item === undefined) return;
      if (!item || item.kind !== 'cell') return say('select a cell (below the agents in the Health view)', 'warn');
      const c = item.cell;
      ask(
        `Reset the counters of ${c.unit} ${c.step}`,
        [
          `${c.unit} ${c.step}: ${c.state}, ${c.attempts.length} attempt${c.attempts.length === 1 ? '' : 's'}${classCounts(c) ? ` (${classCounts(c)})` : ''}`,
          'Forgets its attempts, counters and escalation (the journal keeps the history);',
          'its checkpoint.md cell follows the disk again (✅ proven, ⏳ a half-product, — nothing).',
        ],
        { kind: 'reset_cell', unit: c.unit, step: c.step },
      );
    },

    /** q or ctrl-c: true when handled here (runs in flight: ask; ctrl-c again: leave them). */
    requestQuit(ctrlC: boolean): boolean {
      const snap = sup.snapshot();
      const n = snap.role === 'driver' ? snap.runs.length + snap.waiting.length : 0;
      if (n === 0) return false;
      const d = get().dialog;
      if (d?.pending.type === 'agents' && d.pending.action.kind === 'quit') {
        if (!ctrlC) return true;
        set((st) => ({ dialog: null, quit: true, agents: { ...st.agents, quitMode: 'leave' } }));
        return true;
      }
      const flights = flightItems(get().agents);
      ask(
        `Quit with ${n} run${n === 1 ? '' : 's'} in flight`,
        [
          ...flights.slice(0, 4).map((f) => `${f.unit} ${f.step}: ${flightState(f, get().agents)}`),
          ...(flights.length > 4 ? [`… and ${flights.length - 4} more`] : []),
          'y/enter: cancel them, then quit (each cell goes back to what it was, or ❌)',
          'l: leave them running and quit (the next checkroom adopts them; the marker decides)',
          'n/esc: stay',
        ],
        { kind: 'quit', runs: n },
      );
      return true;
    },

    leave(): void {
      const d = get().dialog;
      if (d?.pending.type !== 'agents' || d.pending.action.kind !== 'quit') return;
      set((st) => ({ dialog: null, quit: true, agents: { ...st.agents, quitMode: 'leave' } }));
    },

    confirm(): void {
      const d = get().dialog;
      if (d?.pending.type !== 'agents') return;
      const a = d.pending.action;
      set({ dialog: null });
      switch (a.kind) {
        case 'launch': {
          const go = () => doLaunch(a.unit, a.step, a.reset);
          if (!a.consent) return go();
          return track(sup.note(commandShownEvent(config, a.unit, a.step, Date.now())).then(go, fail));
        }
        case 'autopilot':
          if (!a.consent) return turnAutopilotOn();
          return track(sup.note(commandShownEvent(config, a.consent.unit, a.consent.step, Date.now())).then(turnAutopilotOn, fail));
        case 'cancel':
          try {
            return say(sup.cancel(a.key) ? `cancelling ${a.key.replace('/', ' ')}…` : `${a.key.replace('/', ' ')} is no longer running`, 'info');
          } catch (err) {
            return fail(err);
          }
        case 'breaker': {
          const run = () => (a.op === 'reset' ? sup.resetBreaker(a.agent) : a.op === 'hold' ? sup.holdBreaker(a.agent) : sup.releaseBreaker(a.agent));
          return act(run, `breaker ${a.agent}: ${a.op === 'reset' ? 'reset (closed)' : a.op === 'hold' ? 'held open' : 'released'}`);
        }
        case 'reset_cell':
          return act(() => sup.resetCell(a.unit, a.step), `${a.unit} ${a.step}: counters reset`);
        case 'continue':
          say(`continuing ${a.unit} ${a.step}…`);
          sup.launch(a.unit, a.step, { reason: 'continued from the control room', continue: true }).catch(fail);
          return;
        case 'quit':
          return set((st) => ({ quit: true, agents: { ...st.agents, quitMode: 'cancel' } }));
      }
    },

    /** C in Partials or Plan (issue 11): preview, then resume the interrupted session. */
    requestContinue(): void {
      const s = get();
      let cell: { unit: string | null; step: string | null } | null | undefined;
      if (s.view === 'partials') {
        const p = pickPartial(s);
        if (p && 'gone' in p) return void set(goneUpdate(s, 'partials', p.gone));
        cell = p?.item.file;
      } else cell = continueTarget(selectedPlan() ?? null);
      if (!cell?.unit || !cell.step) return say('select a cell with a half-product (Partials) or a step (Plan)', 'warn');
      const { unit, step } = cell;
      let c: ReturnType<typeof sup.continuable>;
      try {
        c = sup.continuable(unit, step);
      } catch (err) {
        return fail(err);
      }
      if (!c) return say(`${unit} ${step}: no interrupted agent session to continue (needs adapter claude-code and a journalled session); enter or d starts over`, 'warn');
      ask(`Continue ${unit} ${step}: resume its session`, continueLines(unit, step, c), { kind: 'continue', unit, step });
    },

    launchQueued,
  };
}

export type AgentsActions = ReturnType<typeof createAgents>;
