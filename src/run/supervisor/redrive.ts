import { exclusionOf } from '../../bulk/exclude.js';
import { recordBulk, undoBulk, type BulkOrder, type UndoPlan } from '../../bulk/apply.js';
import type { BulkRecord } from '../../bulk/events.js';
import { targetOf } from '../attempt/launch-spec.js';
import { provenDone } from '../attempt/launch-proof.js';
import type { InFlight, JournalPort, Roles, WorkspaceRef } from './ports.js';
import type { RunResult } from './types.js';

// A named set action from the supervisor (docs/redrive.md): one journal record, then — for a
// relaunch — its queue handed to the operator's launch (launch.ts launchCell: budgets,
// breakers, quota, one writer per file), never around it. The agents' concurrency is kept: a
// cell starts when its agent has a slot, the rest wait in the queue, which the ledger keeps
// through a quit, a crash or a takeover. What has its marker is never relaunched (exclusionOf,
// asked again at the moment of the launch: the marker may have come since the preview).

export interface RedrivePorts {
  ready: Promise<void>;
  roles: Pick<Roles, 'refuse'>;
  ws: WorkspaceRef;
  journal: JournalPort;
  inFlight: Pick<InFlight, 'flights'>;
  launch(unit: string, step: string, o: { reason: string }): Promise<RunResult>;
}

export interface DrainOutcome {
  /** Cells started now, by key. */
  started: string[];
  /** Cells the gate refused now (they stay queued), with why. */
  refused: { key: string; why: string }[];
  /** Every run started, settled when it ends. */
  runs: Promise<void>;
}

export interface RedriveOutcome extends DrainOutcome {
  record: BulkRecord;
}

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

/** Try one launch: refused (the gate's words) or started (its flight registered). */
async function tryLaunch(p: RedrivePorts, unit: string, step: string, name: string): Promise<{ why: string } | { run: Promise<unknown> }> {
  let why: string | null = null;
  const run = p.launch(unit, step, { reason: `redrive ${name}` }).catch((err: Error) => {
    why = err.message;
  });
  // launchCell decides with no await after `ready` but the gate's own: a refusal has landed by the next turn.
  await tick();
  return why !== null ? { why } : { run };
}

/** Launch the queued cells whose agents have a free slot; the others wait for the next drain. */
export async function drainQueue(p: RedrivePorts, only: string | null = null): Promise<DrainOutcome> {
  await p.ready;
  p.roles.refuse('relaunch');
  const out: DrainOutcome = { started: [], refused: [], runs: Promise.resolve() };
  const runs: Promise<unknown>[] = [];
  const { config } = p.ws;
  const busy = new Map<string, number>();
  for (const f of p.inFlight.flights.values()) busy.set(f.agent, (busy.get(f.agent) ?? 0) + 1);
  for (const [key, q] of Object.entries(p.journal.ledger().bulk.queue)) {
    if (only !== null && q.id !== only) continue;
    const cut = key.lastIndexOf('/');
    const [unit, step] = [key.slice(0, cut), key.slice(cut + 1)];
    const t = targetOf(p.ws.root, config, unit, step);
    const why = exclusionOf({ marker: provenDone(p.ws.root, config.pipeline, t, unit), running: p.inFlight.flights.has(key), writtenBy: null });
    if (why) {
      out.refused.push({ key, why });
      continue;
    }
    if ((busy.get(t.agent.name) ?? 0) >= t.agent.concurrency) continue;
    const r = await tryLaunch(p, unit, step, q.name);
    if ('why' in r) out.refused.push({ key, why: r.why });
    else {
      busy.set(t.agent.name, (busy.get(t.agent.name) ?? 0) + 1);
      out.started.push(key);
      runs.push(r.run);
    }
  }
  out.runs = Promise.all(runs).then(() => undefined);
  return out;
}

/** Drain until the queue (of one action, or all) is empty or what is left is refused: each run's end frees a slot for the next. */
export async function drainAll(p: RedrivePorts, only: string | null): Promise<DrainOutcome> {
  const first = await drainQueue(p, only);
  // Cells waiting for a slot go as runs end; a refused one stays queued with its reason told.
  const more = async (runs: Promise<void>): Promise<void> => {
    await runs;
    const next = await drainQueue(p, only).catch(() => null);
    if (next?.started.length) await more(next.runs);
  };
  return { started: first.started, refused: first.refused, runs: more(first.runs) };
}

/** Record the order as one named action; a relaunch then drains its queue, slot by slot, until it is empty or refused. */
export async function redrive(p: RedrivePorts, o: BulkOrder): Promise<RedriveOutcome> {
  await p.ready;
  p.roles.refuse(`${o.action} cells`);
  const record = await recordBulk(p.journal, o);
  if (o.action !== 'relaunch') return { record, started: [], refused: [], runs: Promise.resolve() };
  return { record, ...(await drainAll(p, record.id)) };
}

/** Undo a named action (the last one without a name) as one journal record. */
export async function undoRedrive(p: Pick<RedrivePorts, 'ready' | 'roles' | 'journal'>, which: string | null): Promise<UndoPlan> {
  await p.ready;
  p.roles.refuse('undo a set action');
  return undoBulk(p.journal, which);
}
