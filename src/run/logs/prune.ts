import { lstatSync, unlinkSync } from 'node:fs';
import { join, relative } from 'node:path';
import { assertInside } from '../../fs/confine-path.js';
import type { JournalEvent, NewJournalEvent } from '../journal/journal.js';
import type { SupervisorEvent } from '../supervisor/types.js';
import type { SupervisorJournal } from '../supervisor/journal.js';
import { attemptLogs, type AttemptLog } from './attempts.js';

// The disk budget of `.checkroom/runs/` (docs/logs.md, "Disk budget"): when the attempts'
// logs pass `logs.max_bytes`, the oldest are removed until they fit — never a cell's last
// attempt (the one the operator reads first) and never a live run's (its agent still writes
// it). Each removal is one `log_pruned` journal event, so the pager and `checkroom logs` say
// "pruned at …" instead of a bare missing file. Every unlinked path passes confine-path.ts.

export interface LogSize {
  log: AttemptLog;
  bytes: number;
}

/** Which logs to remove, oldest launch first, so that the rest fit `maxBytes`. Pure. */
export function planPrune(logs: readonly LogSize[], maxBytes: number): LogSize[] {
  let total = logs.reduce((n, l) => n + l.bytes, 0);
  if (total <= maxBytes) return [];
  const last = new Map<string, string>();
  for (const { log } of [...logs].sort((a, b) => a.log.launchedAt - b.log.launchedAt)) last.set(`${log.unit}\u0000${log.step}`, log.runId);
  const out: LogSize[] = [];
  for (const l of [...logs].sort((a, b) => a.log.launchedAt - b.log.launchedAt)) {
    if (total <= maxBytes) break;
    if (l.log.live || last.get(`${l.log.unit}\u0000${l.log.step}`) === l.log.runId) continue;
    out.push(l);
    total -= l.bytes;
  }
  return out;
}

/** The logs that exist now, with their sizes (a symlink or a non-file is not counted, nor removed). */
export function logSizes(root: string, events: readonly JournalEvent[]): LogSize[] {
  const runs = join(root, '.checkroom', 'runs');
  const out: LogSize[] = [];
  for (const log of attemptLogs(events, root)) {
    if (log.pruned || relative(runs, log.logPath).startsWith('..')) continue;
    try {
      const st = lstatSync(log.logPath);
      if (st.isFile()) out.push({ log, bytes: st.size });
    } catch {
      // gone already: nothing to count
    }
  }
  return out;
}

export interface PruneResult {
  removed: LogSize[];
  /** Logs over budget that could not go (last attempts, live runs) and failures, in words. */
  notes: string[];
}

/** Remove what planPrune picks and journal each removal through `append`. */
export async function pruneLogs(
  root: string,
  events: readonly JournalEvent[],
  maxBytes: number,
  append: (e: NewJournalEvent) => Promise<void>,
  now: () => number,
): Promise<PruneResult> {
  const sizes = logSizes(root, events);
  const plan = planPrune(sizes, maxBytes);
  const totalBytes = sizes.reduce((n, l) => n + l.bytes, 0);
  const removed: LogSize[] = [];
  const notes: string[] = [];
  for (const p of plan) {
    try {
      unlinkSync(assertInside('unlink', p.log.logPath, [root]));
    } catch (err) {
      notes.push(`${relative(root, p.log.logPath)}: not removed (${(err as Error).message})`);
      continue;
    }
    removed.push(p);
    await append({
      type: 'log_pruned',
      at: now(),
      runId: p.log.runId,
      unit: p.log.unit,
      step: p.log.step,
      attempt: p.log.attempt,
      path: relative(root, p.log.logPath),
      bytes: p.bytes,
      totalBytes,
      maxBytes,
    });
  }
  const left = totalBytes - removed.reduce((n, l) => n + l.bytes, 0);
  if (left > maxBytes)
    notes.push(
      `.checkroom/runs/ holds ${left} bytes, over logs.max_bytes ${maxBytes}: what is left is each cell's last attempt or a live run's log, which are never pruned`,
    );
  return { removed, notes };
}

/**
 * The supervisor's pruner: one prune at a time (two exits close together must not remove a
 * log twice); what it removed is one notice, a budget it cannot meet is said once per
 * session, and a prune that fails never reaches the run that triggered it.
 */
export function logPruner(o: {
  root: string;
  now: () => number;
  emit: (e: SupervisorEvent) => void;
  events: () => readonly JournalEvent[];
  append: (e: NewJournalEvent) => Promise<void>;
}) {
  let pruning: Promise<void> = Promise.resolve();
  const told = new Set<string>();
  const report = (r: PruneResult): void => {
    const bytes = r.removed.reduce((n, l) => n + l.bytes, 0);
    if (r.removed.length > 0)
      o.emit({
        type: 'notice',
        message: `pruned ${r.removed.length} old attempt log${r.removed.length === 1 ? '' : 's'} (${bytes} bytes) to keep .checkroom/runs/ under logs.max_bytes`,
      });
    for (const n of r.notes) {
      const key = n.replace(/\d+ bytes/, '');
      if (told.has(key)) continue;
      told.add(key);
      o.emit({ type: 'notice', message: n });
    }
  };
  return (max: number): Promise<void> => (pruning = pruning.then(() => pruneLogs(o.root, o.events(), max, o.append, o.now).then(report, () => undefined)));
}

/** After each exit the journal appends, the disk budget is checked (the driver's journal only: an observer appends nothing). */
export function withLogBudget(j: SupervisorJournal, o: { root: string; now: () => number; emit: (e: SupervisorEvent) => void; maxBytes: number }): void {
  const append = j.append.bind(j);
  const prune = logPruner({ ...o, events: () => j.events(), append });
  j.append = async (e) => {
    await append(e);
    if (e.type === 'exit') await prune(o.maxBytes);
  };
}
