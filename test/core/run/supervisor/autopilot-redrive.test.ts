import { describe, expect, it } from 'vitest';
import { tempDir, writeFakeAgentWs } from '../../../helpers/workspace.js';
import { exitEv, launchEv } from '../../../helpers/history-journal.js';
import { loadConfig } from '../../../../src/pipeline/config/config.js';
import { pickLaunches } from '../../../../src/run/supervisor/autopilot.js';
import { replayJournal } from '../../../../src/run/journal/ledger-fold.js';
import { bulkRecordOf } from '../../../../src/bulk/apply.js';
import type { JournalEvent, NewJournalEvent } from '../../../../src/run/journal/journal.js';
import type { NextStep } from '../../../../src/types.js';

// Autopilot and `run --next --auto` choose through pickLaunches: a redrive's skipped cells are
// left alone with why, and its relaunch queue goes first, even a cell the plan would leave for a
// human (docs/redrive.md). The ledger carries both, so a restart keeps them.

const v = (e: NewJournalEvent): JournalEvent => ({ ...e, v: 1 }) as JournalEvent;
const step = (unit: string, action: NextStep['action'], priority: NextStep['priority']): NextStep => ({ priority, unit, step: 'draft', action, reason: action, blocks: 0 });

describe('pickLaunches with a redrive in the ledger', async () => {
  const root = writeFakeAgentWs(tempDir('checkroom-pick-redrive-'), { units: ['ch01', 'ch02', 'ch03'], concurrency: 5 });
  const config = await loadConfig(root);
  const past = [
    launchEv('a', 1, 'ch01', 'draft'),
    exitEv('a', 2, 'ch01', 'draft', 'RATE_LIMITED', 1),
    launchEv('b', 3, 'ch03', 'draft'),
    exitEv('b', 4, 'ch03', 'draft', 'PERMISSION', 1),
    { type: 'escalate', at: 4, unit: 'ch03', step: 'draft', class: 'PERMISSION', reason: 'refused' },
  ].map((e) => v(e as NewJournalEvent));
  const plan = [step('ch01', 'retry', 1), step('ch03', 'human_review', 1), step('ch02', 'run', 3)];
  const pick = (events: JournalEvent[]) =>
    pickLaunches({ plan, ledger: replayJournal(events, 10, config), config, inFlight: new Map(), budget: 9, redoHalfProducts: true, now: 10 });

  it('a skipped cell is blocked with the name of the action that skipped it', () => {
    const skip = v(bulkRecordOf({ action: 'skip', name: 'night-skip', filter: 'units=ch01', cells: [{ unit: 'ch01', step: 'draft' }] }, 5));
    const p = pick([...past, skip]);
    expect(p.launch.map((c) => c.unit)).toEqual(['ch02']);
    expect(p.blocked).toContainEqual({ unit: 'ch01', step: 'draft', why: 'skipped by night-skip; undo it to bring the cell back', retryInMs: null });
  });

  it("a relaunch's queue goes first, the escalated cell it counted anew included", () => {
    expect(pick(past).launch.map((c) => c.unit)).toEqual(['ch01', 'ch02']);
    const relaunch = v(bulkRecordOf({ action: 'relaunch', name: 'rl', filter: 'status=failed,escalated', cells: [{ unit: 'ch03', step: 'draft' }] }, 5));
    expect(pick([...past, relaunch]).launch.map((c) => c.unit)).toEqual(['ch03', 'ch01', 'ch02']);
  });
});
