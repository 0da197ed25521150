import { commandShownEvent } from '../../consent.js';
import type { WorkspaceConfig } from '../../pipeline/config/types.js';
import type { AgentAction, SupervisorPort } from './types.js';
import type { SetState } from '../store/kit.js';
import type { Tone } from '../store/types.js';
import { resultWords, type Refused } from '../marks/words.js';
import { undoWords } from '../../bulk/apply.js';
import { redriveWords } from './redrive.js';

// What an agents confirmation does, one row per kind of dialog. These are
// calls into the supervisor, not disk writes of the store's own: they hold no `busy`. A run
// resolves when the cell's last attempt ends (minutes), so the journal's events tell the
// story; only a refusal (breaker open, budget used, already running) becomes a message.

/** What the effects act through (store-agents.ts builds it once per store). */
export interface AgentsIo {
  sup: SupervisorPort;
  config: WorkspaceConfig;
  set: SetState;
  track: (p: Promise<unknown>) => void;
  /** Unit, step and agent names come from the workspace: every message of this slice is sanitized. */
  sayClean: (text: string, tone?: Tone) => void;
  fail: (err: unknown) => void;
  /** A supervisor call in the background, then `done` said; a refusal is said instead. */
  call: (work: () => Promise<void>, done: string) => void;
  launch: (unit: string, step: string, reset: boolean, overBudget?: boolean) => void;
  autopilotOn: () => void;
}

type Row<K extends AgentAction['kind']> = (io: AgentsIo, a: Extract<AgentAction, { kind: K }>) => void;

/** The first launch from a config records that its command was shown (consent.ts), then goes. */
const consented = (io: AgentsIo, c: { unit: string; step: string } | null, go: () => void): void => {
  if (!c) return go();
  io.track(io.sup.note(commandShownEvent(io.config, c.unit, c.step, Date.now())).then(go, io.fail));
};

const errText = (err: unknown): string => (err as Error)?.message ?? String(err);

/**
 * The marked steps (marks.ts), each launched as enter launches one: the supervisor refuses
 * what its policies refuse (budget, breaker, a writer), each refusal joins the result line as
 * it comes, and the others go on.
 */
const launchAll = (io: AgentsIo, a: Extract<AgentAction, { kind: 'launches' }>): void => {
  const refused: Refused[] = [...a.refused];
  const name = (l: { unit: string; step: string }): string => `${l.unit} ${l.step}`;
  let going = a.launches.map(name);
  const say = (): void => io.sayClean(resultWords('launching', going, refused), refused.length > a.refused.length ? 'warn' : 'ok');
  for (const l of a.launches)
    io.sup.launch(l.unit, l.step, { reason: 'launched from the control room (marked)', reset: l.reset, overBudget: a.overBudget }).catch((err: unknown) => {
      going = going.filter((g) => g !== name(l));
      refused.push({ what: name(l), why: errText(err) });
      say();
    });
  say();
};

/** The marked runs, each cancelled as x cancels one. */
const cancelAll = (io: AgentsIo, a: Extract<AgentAction, { kind: 'cancels' }>): void => {
  const done: string[] = [];
  const refused: Refused[] = [...a.refused];
  for (const key of a.keys) {
    const what = key.replace('/', ' ');
    try {
      if (io.sup.cancel(key)) done.push(what);
      else refused.push({ what, why: 'no longer running' });
    } catch (err) {
      refused.push({ what, why: errText(err) });
    }
  }
  io.sayClean(resultWords('cancelling', done, refused), 'info');
};

/** The marked cells, each reset as Z resets one; one the supervisor refuses (in flight) is said, the others go on. */
const resetAll = (io: AgentsIo, a: Extract<AgentAction, { kind: 'reset_cells' }>): void => {
  const done: string[] = [];
  const refused: Refused[] = [...a.refused];
  const work = async (): Promise<void> => {
    for (const c of a.cells) {
      const what = `${c.unit} ${c.step}`;
      try {
        await io.sup.resetCell(c.unit, c.step);
        done.push(what);
      } catch (err) {
        refused.push({ what, why: errText(err) });
      }
    }
    io.sayClean(resultWords('counters reset for', done, refused), refused.length > a.refused.length ? 'warn' : 'ok');
  };
  io.track(work().catch(io.fail));
};

const breakerDone = { reset: 'reset (closed)', hold: 'held open', release: 'released' } as const;

export const AGENT_EFFECTS: { [K in AgentAction['kind']]: Row<K> } = {
  launch: (io, a) => consented(io, a.consent ? a : null, () => io.launch(a.unit, a.step, a.reset, a.overBudget)),
  autopilot: (io, a) => consented(io, a.consent, io.autopilotOn),
  cancel: (io, a) => {
    try {
      io.sayClean(io.sup.cancel(a.key) ? `cancelling ${a.key.replace('/', ' ')}…` : `${a.key.replace('/', ' ')} is no longer running`, 'info');
    } catch (err) {
      io.fail(err);
    }
  },
  breaker: (io, a) => {
    const run = () => (a.op === 'reset' ? io.sup.resetBreaker(a.agent) : a.op === 'hold' ? io.sup.holdBreaker(a.agent) : io.sup.releaseBreaker(a.agent));
    io.call(run, `breaker ${a.agent}: ${breakerDone[a.op]}`);
  },
  reset_cell: (io, a) => io.call(() => io.sup.resetCell(a.unit, a.step), `${a.unit} ${a.step}: counters reset`),
  continue: (io, a) => {
    io.sayClean(`continuing ${a.unit} ${a.step}…`);
    io.sup.launch(a.unit, a.step, { reason: 'continued from the control room', continue: true }).catch(io.fail);
  },
  launches: (io, a) => consented(io, a.consent, () => launchAll(io, a)),
  cancels: cancelAll,
  reset_cells: resetAll,
  redrive: (io, a) =>
    consented(io, a.consent, () =>
      io.track(
        io.sup.redrive(a.order).then((r) => {
          io.sayClean(redriveWords(a.order.action, r), r.refused.length ? 'warn' : 'ok');
          return r.runs;
        }, io.fail),
      ),
    ),
  redrive_undo: (io, a) => io.track(io.sup.undoRedrive(a.which).then((p) => io.sayClean(undoWords(p), 'ok'), io.fail)),
  quit: (io) => io.set((st) => ({ quit: true, agents: { ...st.agents, quitMode: 'cancel' } })),
};

/** The row for a pending agents dialog (TypeScript cannot correlate a mapped row with its key by itself). */
export const agentEffect = (a: AgentAction): Row<AgentAction['kind']> => AGENT_EFFECTS[a.kind] as Row<AgentAction['kind']>;
