import { autopilotOf } from '../../operator/health.js';
import { autopilotWords } from '../../operator/words.js';
import type { AgentsOptions } from './types.js';
import type { PauseRequest } from '../../run/supervisor/pause-action.js';
import { seeFilesNow, type Seen } from '../keys/confirm-guard.js';
import { outputOf } from '../../run/process/writers.js';
import { storeKit, type KitDeps } from '../store/kit.js';
import { redriveRequest } from './redrive-slice.js';
import { agentEffect, type AgentsIo } from './effects.js';
import { concurrencyAction } from './concurrency.js';
import {
  launchAsk,
  planAutopilot,
  planBreaker,
  planCancel,
  planContinue,
  planLaunchSelected,
  planQuit,
  planResetCell,
  type AgentsRead,
  type LaunchRequest,
} from './planners.js';
import { planMarkedCancel, planMarkedLaunch, planMarkedReset } from '../marks/agents.js';

// The store's supervisor actions. Each one that
// changes what agents do asks first when it is dangerous (cancel, breaker, reset); the
// first launch from a config shows the exact command (consent recorded in the journal,
// shared with `checkroom run`). Refusals (breaker open, budget, read-only) are messages.
// What each key decides is a pure planner (agents-planners.ts), what a confirmation does a
// row of agents-effects.ts; this file applies the one and runs the other.

/** p, :drain, :undrain, :pause, :resume (docs/drain.md): the driver journals it; a refusal is said. */
const pauser =
  ({ sup, set, act, sayClean }: { sup: AgentsOptions['sup']; set: KitDeps['set']; act: ReturnType<typeof storeKit>['act']; sayClean: ReturnType<typeof storeKit>['sayClean'] }) =>
  (r: PauseRequest | string): void => {
    if (typeof r === 'string') return sayClean(r, 'warn');
    act(null, async () => {
      const said = await sup.setPause(r);
      set((st) => ({ agents: { ...st.agents, snap: sup.snapshot() } }));
      sayClean(said, 'ok');
    });
  };

interface Deps extends KitDeps {
  opts: AgentsOptions;
}

export function createAgents({ set, get, opts, track }: Deps) {
  const { sup, config } = opts;
  const { sayClean, fail, act, apply, settle } = storeKit({ set, get, track });
  const read: AgentsRead = { sup, config };
  // Agent dialogs are dated by the wall clock: they plan no backup names.
  const decide = (d: Parameters<typeof apply>[0]): void => apply(d, Date.now());

  /** A relaunch confirms against the output as it was shown (confirm-guard.ts). */
  const outputSeen = (unit: string, step: string): Seen[] => {
    const path = get().ws.cells.find((c) => c.unit === unit && c.step === step)?.path ?? outputOf(config.pipeline, unit, step);
    return path === null ? [] : seeFilesNow(get().ws.root, [{ unit, step, path }]);
  };

  // A queued redo leaves the queue when its launch event arrives (agents-feed.ts), not
  // before: a refused launch (budget, breaker) keeps the operator's request.
  const launch = (unit: string, step: string, reset: boolean, overBudget = false): void => {
    sayClean(`launching ${unit} ${step}…`);
    sup.launch(unit, step, { reason: 'launched from the control room', reset, overBudget }).catch(fail);
  };
  const requestLaunch = (o: LaunchRequest): void => {
    const dialog = launchAsk(read, o);
    if (!dialog) return launch(o.unit, o.step, false);
    decide({ ask: { ...dialog, seen: outputSeen(o.unit, o.step) } });
  };

  /**
   * Redo entries the operator queued go first when autopilot runs. The supervisor's own
   * loop launches them, from its plan and in queue order: one launcher, so concurrency,
   * caps and dependencies hold exactly as for its other picks.
   */
  const launchQueued = (): void => sup.prefer(get().redoQueue);
  const autopilotOn = (): void => {
    // The queue first, so the first tick already takes it in the operator's order.
    launchQueued();
    track(
      sup.setAutopilot(true).then(() => {
        // What the header and Health will say: the operator model's state, not the request's
        // (the status line said "on: launching" while the header said PAUSED).
        const pilot = autopilotOf(sup.snapshot());
        if (pilot.state === 'paused') sayClean(`autopilot ${autopilotWords(pilot)}; nothing is launched until that is resolved`, 'warn');
        else sayClean('autopilot on: launching within concurrency, caps and breakers (a turns it off)', 'ok');
        launchQueued();
      }, fail),
    );
  };
  /** Supervisor calls hold no `busy`: the disk actions of triage and recovery do. */
  const call = (work: () => Promise<void>, done: string): void => act(null, () => work().then(() => sayClean(done, 'ok')));
  const io: AgentsIo = { sup, config, set, track, sayClean, fail, call, launch, autopilotOn };

  return {
    launchSelected: (): void => {
      const o = settle(planLaunchSelected(read, get()), Date.now());
      if (o) requestLaunch(o);
    },
    toggleAutopilot: (): void => {
      const go = settle(planAutopilot(read, get()), Date.now());
      if (go === 'off') call(() => sup.setAutopilot(false), 'autopilot off: runs in flight go on; nothing new starts');
      if (go === 'on') autopilotOn();
    },
    /** A (docs/notify.md, Banner): the "needs you" banner goes, journalled, until the next escalation. */
    ackAlarms: (): void =>
      call(async () => {
        await sup.note({ type: 'decision', at: Date.now(), kind: 'ack_alarms' });
        set((st) => ({ agents: { ...st.agents, snap: sup.snapshot() } }));
      }, 'acknowledged: the banner comes back with the next escalation'),
    pause: pauser({ sup, set, act, sayClean }),
    /** `:concurrency writer 4`: journalled; Health's slots and a live Slurm array's %T follow (docs/scale-out.md, Arrays). */
    setConcurrency: concurrencyAction({ sup, config, set, act, sayClean }),
    requestCancel: (): void => decide(planCancel(get())),
    requestBreaker: (op: 'reset' | 'hold'): void => decide(planBreaker(config, get(), op)),
    requestResetCell: (): void => decide(planResetCell(get())),
    /** enter, x and Z on the marked rows (docs/marks.md): one preview each. */
    requestMarkedLaunch: (): void => decide(planMarkedLaunch(read, get())),
    requestMarkedCancel: (): void => decide(planMarkedCancel(get())),
    requestMarkedReset: (): void => decide(planMarkedReset(get())),
    /** `:redrive <filter>` (docs/redrive.md): the preview, then a dialog; `undo [name]`, `drain`. */
    requestRedrive: redriveRequest({ sup, config, get, act, decide, sayClean }),
    /** C in Partials or Plan: preview, then resume the interrupted session. */
    requestContinue: (): void => decide(planContinue(read, get())),

    /** q or ctrl-c: true when handled here (runs in flight: ask; ctrl-c again: leave them). */
    requestQuit: (ctrlC: boolean): boolean => {
      const d = planQuit(read, get(), ctrlC);
      if (d) decide(d);
      return d !== null;
    },
    leave: (): void => {
      const d = get().dialog;
      if (d?.pending.type !== 'agents' || d.pending.action.kind !== 'quit') return;
      set((st) => ({ dialog: null, quit: true, agents: { ...st.agents, quitMode: 'leave' } }));
    },
    confirm: (): void => {
      const d = get().dialog;
      if (d?.pending.type !== 'agents') return;
      const a = d.pending.action;
      set({ dialog: null });
      agentEffect(a)(io, a);
    },

    launchQueued,
  };
}

export type AgentsActions = ReturnType<typeof createAgents>;
