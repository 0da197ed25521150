import { afterEach, describe, expect, it } from 'vitest';
import { createLiveWorkspace } from '../../../src/live/live-workspace.js';
import { createAppStore } from '../../../src/ui/store/store.js';
import { NO_COLOR_THEME } from '../../../src/text/theme.js';
import { initialAgents } from '../../../src/ui/agents/types.js';
import { replayJournal } from '../../../src/run/journal/ledger-fold.js';
import type { JournalEvent } from '../../../src/run/journal/journal.js';
import type { NextStep } from '../../../src/types.js';
import { renderRoom, unmountAll } from '../../helpers/ink.js';
import { copyDemo } from '../../helpers/workspace.js';
import { plainSnapshot } from '../../helpers/snapshot.js';

// Plan and Health rows as the operator model gives them (issue 18 item 1), on the demo with a
// plan and a snapshot given as plain values: Plan listed ch01 memory twice, and Health said
// "ch04 memory escalated · next attempt 2 of 4".

afterEach(unmountAll);

const T0 = Date.UTC(2026, 10, 30, 5, 0, 0);
const ev = (e: Record<string, unknown>): JournalEvent => ({ v: 1, ...e }) as unknown as JournalEvent;

async function room() {
  const live = await createLiveWorkspace(copyDemo(), { watch: false });
  const store = createAppStore({ live });
  return { live, store };
}

describe('Plan and Health rows from the operator model', () => {
  it('Plan lists one row per cell: the most urgent action, the other reason in the detail', async () => {
    const { live, store } = await room();
    const ws = store.getState().ws;
    const entry = (p: Partial<NextStep>): NextStep => ({ priority: 1, unit: 'ch01', step: 'memory', action: 'human_review', reason: 'ch01 memory needs a human', blocks: 0, ...p }) as NextStep;
    const next = [entry({ action: 'rebuild_memory', reason: 'rebuild the ch01 entry of meta/chapter-summaries.md' }), entry({}), ...ws.next];
    store.setState({ ws: { ...ws, next } });
    const { frame, press } = await renderRoom(store, live, NO_COLOR_THEME, 30, 160);
    await press('3');
    const f = frame();
    expect(f.split('\n').filter((l) => /^[ ›] P\d ch01 memory /.test(l)), f).toHaveLength(1);
    expect(f).toMatch(/3 Plan \((\d+)\)/);
    expect(Number(/3 Plan \((\d+)\)/.exec(f)![1])).toBe(next.length - 1);
    await press('g');
    expect(frame()).toMatch(/rebuild the ch01 entry of meta\/chapter-summaries\.md; also needs you: ch01 memory needs a human/);
  });

  it('Health: an escalated cell has no next attempt, and comes first', async () => {
    const { live, store } = await room();
    const limits = { maxLaunches: 100, maxConsecutiveFailures: 10, caps: { UNKNOWN: 4 }, backoffBaseMs: 1000, backoffMaxMs: 8000 };
    const events = [
      ev({ type: 'launch', at: T0, runId: 'r1', unit: 'ch04', step: 'memory', agent: 'archivist', attempt: 1, argv: [], cwd: '/', logPath: '/l', pid: 1, procStart: null, outputPath: null }),
      ev({ type: 'exit', at: T0 + 1, runId: 'r1', unit: 'ch04', step: 'memory', agent: 'archivist', exitCode: 1, signal: null, class: 'UNKNOWN', markerFound: false, cmdFp: 'c', errFp: 'e', keywords: [], errorTail: ['boom'], durationMs: 1 }),
      ev({ type: 'escalate', at: T0 + 2, unit: 'ch04', step: 'memory', class: 'CIRCULAR_FIX', reason: 'CIRCULAR_FIX: same command and same error 3 times' }),
    ];
    const ledger = replayJournal(events, T0 + 3, { breaker: { threshold: 5, cooldownMs: 6000, maxCooldownMs: 30_000 }, limits });
    const snap = plainSnapshot(ledger, { launchesThisSession: 1, limits: { maxLaunches: 100, maxConsecutiveFailures: 10, consecutiveFailures: 1, breakerThreshold: 5 } });
    store.setState({ agents: { ...initialAgents(), enabled: true, snap, at: T0 + 3, limits, agentNames: ['researcher', 'archivist'] } });
    const { frame, press } = await renderRoom(store, live, NO_COLOR_THEME, 30, 160);
    await press('5');
    const f = frame();
    const rows = f.split('\n').filter((l) => /^[ ›] (agent \S+|ch\d+ \S+) /.test(l));
    // The class it was escalated with, not only the attempt's own (the status line says the same, issue 18).
    expect(rows[0], f).toMatch(/ch04 memory\s+escalated\s+1 att · escalated as CIRCULAR_FIX · UNKNOWN 1/);
    expect(f).not.toMatch(/ch04 memory.*next attempt/);
    expect(f).not.toMatch(/next: attempt/);
  });
});
