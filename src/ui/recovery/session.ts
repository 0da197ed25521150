import type { StoreApi } from 'zustand/vanilla';
import type { WorkspaceState } from '../../types.js';
import type { WorkspaceRead } from '../../recover/load.js';
import { interrupted } from '../../recover/report.js';
import { lastSessionEnd } from '../../recover/session-end.js';
import { readJournal } from '../../run/journal/journal.js';
import { milestoneReached } from '../../resume/milestone.js';
import { schedulerCheck } from '../agents/scheduler-check.js';
import { resumeStatus, writeLetter } from './plan.js';
import type { RecoveryUi, SessionOptions } from './types.js';
import type { KitDeps } from '../store/kit.js';
import type { AppState } from '../store/types.js';

// RESUME.md kept honest while the control room runs (docs/domain.md, Three sources of progress; What goes wrong): its drift
// re-checked after every workspace change (the newest check wins), the letter rewritten at
// milestones, the scheduler asked, and the recover report opened by itself when
// the last session was interrupted. The watching half of the recovery slice.

interface Deps extends Pick<KitDeps, 'get' | 'track'> {
  now: () => Date;
  session: SessionOptions;
  update: (patch: Partial<RecoveryUi>) => void;
  say: (text: string, tone: 'ok' | 'fail') => void;
  /** Open the recover report; `quiet`: it does not cover the operator's work (recovery-planners.ts reportArrived). */
  openReport: (quiet: boolean) => Promise<void>;
  /** The live workspace as read: a milestone's letter does not read the workspace again. */
  read: () => Promise<WorkspaceRead>;
}

export function recoverySession({ get, track, now, session, update, say, openReport, read }: Deps) {
  let resumeSeq = 0;
  /** RESUME.md against the disk; a check overtaken by a newer one publishes nothing. */
  const checkResume = async (): Promise<RecoveryUi['resume']> => {
    const seq = ++resumeSeq;
    try {
      const st = await resumeStatus(get().ws, now().getTime());
      if (seq === resumeSeq) update({ resume: st });
      return st;
    } catch {
      return null;
    }
  };
  const checkScheduler = schedulerCheck(
    () => get().ws,
    (scheduler) => update({ scheduler }),
    now,
  );

  const milestone = (prev: WorkspaceState, next: WorkspaceState): void => {
    if (!session.milestones || get().readonly || prev.root !== next.root) return;
    const m = milestoneReached(prev, next);
    if (!m) return;
    track(
      writeLetter(next, now(), read).then(
        (r) => {
          say(`milestone: ${m} · RESUME.md rewritten${r.backup ? ` (previous in ${r.backup})` : ''}`, 'ok');
          return checkResume();
        },
        (err: Error) => say(`milestone: ${m} · RESUME.md not written: ${err.message}`, 'fail'),
      ),
    );
  };

  /** Start watching; returns the unsubscribe. */
  const attach = (store: StoreApi<AppState>): (() => void) => {
    const unsubscribe = store.subscribe((s, prev) => {
      if (s.ws === prev.ws) return;
      track(checkResume());
      // Not tracked: a read of the scheduler is no write that quitting must wait for.
      void checkScheduler();
      milestone(prev.ws, s.ws);
    });
    void checkScheduler();
    track(
      Promise.all([checkResume(), session.recoverOnStart ? readJournal(get().ws.root) : null]).then(([st, j]) => {
        if (j && interrupted(get().ws, st, lastSessionEnd(j.events, process.pid))) return openReport(true);
      }),
    );
    return unsubscribe;
  };

  return { checkResume, attach };
}
