import { userInfo } from 'node:os';
import type { WorkspaceConfig } from '../../pipeline/config/types.js';
import { pauseStep, ruleWords, type PauseScope } from '../policy/pause.js';
import type { Ledger } from '../journal/ledger.js';
import type { NewJournalEvent } from '../journal/journal.js';
import type { AutopilotPort, Emit, InFlight, JournalPort, Roles } from './ports.js';
import { SupervisorError } from './types.js';

// The operator's drain, undrain, pause and resume (docs/drain.md), one journal record each,
// applied by the driver whatever asked (a key, a `:` command, the socket, `checkroom drain`).
// The decision each launch asks is pause.ts's; this file only records and announces.

/** What the operator asks: `drain` on or off, or a pause (on) or resume (off) of a scope. */
export interface PauseRequest {
  scope: PauseScope | 'drain';
  /** The cell (UNIT/STEP), agent or executor; null for `all` and `drain`. */
  target: string | null;
  on: boolean;
  /** Who and through what, for the record and every refusal: "root via :pause". */
  by: string;
}

/** Why this request names nothing of this workspace, or null. */
export function pauseRequestError(config: WorkspaceConfig, r: PauseRequest): string | null {
  if (r.scope === 'drain' || r.scope === 'all') return null;
  const t = r.target ?? '';
  if (r.scope === 'agent' && !config.agents[t]) return `no agent '${t}' in checkroom.yaml (agents: ${Object.keys(config.agents).join(', ')})`;
  if (r.scope === 'executor') {
    const used = [...new Set(Object.values(config.agents).map((a) => a.executor))];
    if (!used.includes(t as never)) return `no agent of checkroom.yaml runs on executor '${t}' (executors in use: ${used.join(', ')})`;
  }
  if (r.scope === 'cell') {
    const step = t.slice(t.lastIndexOf('/') + 1);
    if (!t.includes('/') || !config.pipeline.steps.some((s) => s.id === step)) return `cell '${t}' is not UNIT/STEP of a step in checkroom.yaml (steps: ${config.pipeline.steps.map((s) => s.id).join(', ')})`;
  }
  return null;
}

/** The record the request journals, or null when it changes nothing (paused already, not draining). */
export function pauseRecordOf(l: Pick<Ledger, 'pause'>, r: PauseRequest, at: number): Extract<NewJournalEvent, { type: 'pause' }> | null {
  const target = r.scope === 'drain' || r.scope === 'all' ? null : r.target;
  const rec = { type: 'pause' as const, at, scope: r.scope, target, on: r.on, by: r.by };
  return pauseStep(l.pause, rec) === l.pause ? null : rec;
}

/** What was done, in words: the status line, the CLI, the socket's answer. */
export function pauseWords(r: PauseRequest, changed: boolean, running: number): string {
  const what = r.scope === 'drain' ? null : ruleWords({ scope: r.scope, target: r.target });
  if (!changed) {
    if (r.scope === 'drain') return r.on ? 'already draining' : 'not draining: nothing to undrain';
    return r.on ? `${what} is paused already` : `${what} was not paused: nothing to resume`;
  }
  if (r.scope === 'drain') {
    if (!r.on) return 'undrained: launches may start again';
    return running > 0 ? `draining: no new launch; ${running} running, left to finish` : 'draining: no new launch; nothing runs';
  }
  return r.on ? `paused ${what}: no new launch of it; what runs finishes` : `resumed ${what}`;
}

/** Announce "drained" once: draining, nothing in flight, no live run in the journal, and not said yet (the ledger's drainedAt). */
export function drainWatch(p: { journal: JournalPort; emit: Emit; inFlight: Pick<InFlight, 'flights'>; roles: Pick<Roles, 'isDriver'> }): () => void {
  let busy = false;
  return () => {
    const l = p.journal.ledger();
    const d = l.pause.drain;
    if (busy || !p.roles.isDriver() || !d || d.drainedAt !== null || p.inFlight.flights.size > 0 || l.liveRuns.length > 0) return;
    busy = true;
    const at = p.journal.now();
    void p.journal
      .append({ type: 'drained', at, since: d.at })
      .then(() => p.emit({ type: 'drained', since: d.at, message: 'drained: the last run ended and nothing runs; change what you need, then :undrain or checkroom drain --off' }))
      .catch(() => undefined)
      .finally(() => (busy = false));
  };
}

/** Apply one request as the driver: refuse what this instance may not do, journal it, tell everyone, look at the plan again. */
export async function pauseAction(
  p: { ready: Promise<void>; roles: Pick<Roles, 'refuse'>; config: WorkspaceConfig; journal: JournalPort; emit: Emit; pilot: Pick<AutopilotPort, 'tick'>; inFlight: Pick<InFlight, 'flights'> },
  r: PauseRequest,
): Promise<string> {
  await p.ready;
  p.roles.refuse(r.scope === 'drain' ? (r.on ? 'drain' : 'undrain') : r.on ? 'pause' : 'resume');
  const bad = pauseRequestError(p.config, r);
  if (bad) throw new SupervisorError(bad);
  const rec = pauseRecordOf(p.journal.ledger(), r, p.journal.now());
  const message = pauseWords(r, rec !== null, p.inFlight.flights.size);
  if (!rec) return message;
  await p.journal.append(rec);
  p.emit({ type: 'pause', scope: r.scope, target: rec.target, on: r.on, by: r.by, message });
  // Resumed: autopilot looks again; drained: said once nothing runs (pilot.tick asks both).
  p.pilot.tick();
  return message;
}

/** Who asks, for the record: the user and the way in ("root via :drain"). */
export function pauseBy(via: string, env: NodeJS.ProcessEnv = process.env): string {
  let user = env.USER ?? env.LOGNAME ?? '';
  if (!user) {
    try {
      user = userInfo().username;
    } catch {
      user = `uid ${process.getuid?.() ?? '?'}`;
    }
  }
  return `${user} via ${via}`;
}
