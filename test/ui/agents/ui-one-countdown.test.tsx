import { afterEach, describe, expect, it } from 'vitest';
import { createLiveWorkspace } from '../../../src/live/live-workspace.js';
import { createAppStore } from '../../../src/ui/store/store.js';
import { NO_COLOR_THEME } from '../../../src/text/theme.js';
import { initialAgents } from '../../../src/ui/agents/types.js';
import { replayJournal } from '../../../src/run/journal/ledger-fold.js';
import type { JournalEvent } from '../../../src/run/journal/journal.js';
import { renderRoom, unmountAll } from '../../helpers/ink.js';
import { copyDemo } from '../../helpers/workspace.js';
import { plainSnapshot } from '../../helpers/snapshot.js';

// Issue 18 item 1: one breaker read "open, 40 s left" in one Plan row and "6 s left" in the
// next, and a Plan countdown froze at "29 s left" while Health said "1 s left". One deadline,
// one clock: every row of the Plan and Health's agent row say the same time left. The
// supervisor's snapshot is given as plain values (the journal folded 20 s after the trip, so
// its view says 40 s left; a cell began to wait when 29 s were left); the store's clock
// reading is 54 s after the trip: 6 s left, everywhere.

afterEach(unmountAll);

const T0 = Date.UTC(2026, 10, 30, 5, 0, 0);

describe('one breaker, one countdown', () => {
  it('two Plan rows of one open breaker, its waiting run and Health show the same time left at one clock', async () => {
    const live = await createLiveWorkspace(copyDemo(), { watch: false });
    const store = createAppStore({ live });
    const ws = store.getState().ws;
    const agentOf = (step: string | null) => ws.pipeline.steps.find((s) => s.id === step)?.agent;
    // The agent with the most plan entries: its open breaker blocks at least two rows.
    const byAgent = new Map<string, number>();
    for (const n of ws.next) if (agentOf(n.step)) byAgent.set(agentOf(n.step)!, (byAgent.get(agentOf(n.step)!) ?? 0) + 1);
    const [agent, entries] = [...byAgent].sort((a, b) => b[1] - a[1])[0];
    expect(entries).toBeGreaterThanOrEqual(2);
    const failure = { v: 1, type: 'breaker', at: T0, agent, event: 'failure', summary: 'boom' } as unknown as JournalEvent;
    const cfg = { breaker: { threshold: 2, cooldownMs: 60_000, maxCooldownMs: 600_000 }, limits: { maxLaunches: 100, maxConsecutiveFailures: 10 } };
    const ledger = replayJournal([failure, failure], T0 + 20_000, cfg);
    const snap = plainSnapshot(ledger, {
      waiting: [{ unit: 'ch99', step: 'draft', agent, retryAt: null, reason: `waiting for breaker ${agent} (open, 29 s left)` }],
      limits: { maxLaunches: 100, maxConsecutiveFailures: 10, consecutiveFailures: 2, breakerThreshold: 2 },
    });
    store.setState({ agents: { ...initialAgents(), enabled: true, snap, at: T0 + 54_000, agentNames: Object.keys(ledger.agents) } });
    const { frame, press } = await renderRoom(store, live, NO_COLOR_THEME, 40, 200);
    await press('3');
    const plan = frame();
    const left = (f: string) => [...f.matchAll(/(\d+) s left/g)].map((m) => m[1]);
    // The waiting run's row and at least two blocked entries, all 6 s.
    expect(left(plan).length, plan).toBeGreaterThanOrEqual(3);
    expect(new Set(left(plan)), plan).toEqual(new Set(['6']));
    await press('5');
    const health = frame();
    expect(health).toMatch(new RegExp(`agent ${agent}\\s+open 6 s left`));
    expect(new Set(left(health)), health).toEqual(new Set(['6']));
  });
});
