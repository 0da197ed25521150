import { afterEach, describe, expect, it } from 'vitest';
import { createLiveWorkspace } from '../../../src/live/live-workspace.js';
import { createAppStore } from '../../../src/ui/store/store.js';
import { NO_COLOR_THEME } from '../../../src/text/theme.js';
import { initialAgents } from '../../../src/ui/agents/types.js';
import { replayJournal } from '../../../src/run/journal/ledger-fold.js';
import type { JournalEvent } from '../../../src/run/journal/journal.js';
import { quotaOf } from '../../../src/operator/quota.js';
import { setOutputCharset, toCharsetInPlace } from '../../../src/text/charset.js';
import { renderRoom, unmountAll } from '../../helpers/ink.js';
import { copyDemo } from '../../helpers/workspace.js';
import { plainSnapshot } from '../../helpers/snapshot.js';

// An account waiting for its quota's reset is ONE countdown (docs/quota.md): two agents
// stopped on it, one deadline from the journal, drawn at the store's one clock reading in the
// header and in Health, at 80×24, with NO_COLOR and under --ascii.

afterEach(() => {
  setOutputCharset('unicode');
  unmountAll();
});

const T0 = Date.UTC(2026, 10, 30, 5, 0, 0);
const RESET = T0 + 125_000;
const account = { account: 'claude-code:abc123def456', label: 'claude-code key abc123 (ANTHROPIC_API_KEY)', until: RESET, source: 'usage-limit' };

const quotaExit = (runId: string, unit: string, step: string, agent: string, at: number): JournalEvent[] => [
  { v: 1, type: 'launch', at: at - 5, runId, unit, step, agent, attempt: 1, argv: ['claude'], cwd: '/w', logPath: `/w/${runId}.log`, pid: 1, procStart: 1, outputPath: null },
  {
    v: 1, type: 'exit', at, runId, unit, step, agent, exitCode: 1, signal: null, class: 'RATE_LIMITED', markerFound: false,
    cmdFp: 'c', errFp: 'e', keywords: [], errorTail: [], durationMs: 5, quota: { ...account, until: at === T0 ? RESET - 60_000 : RESET },
  },
];

const cfg = { breaker: { threshold: 2, cooldownMs: 60_000, maxCooldownMs: 600_000 }, limits: { maxLaunches: 100, maxConsecutiveFailures: 10 } };

describe('one account, one quota countdown', () => {
  it('the model keeps the latest reset of the account once, with every agent waiting on it', () => {
    const ledger = replayJournal([...quotaExit('r1', 'ch01', 'draft', 'writer', T0), ...quotaExit('r2', 'ch02', 'r1', 'reviewer', T0 + 1000)], T0 + 2000, cfg);
    const q = quotaOf(plainSnapshot(ledger), T0 + 2000);
    expect(q).toEqual([{ account: account.account, label: account.label, deadline: RESET, agents: ['reviewer', 'writer'], cells: 2, waiting: [{ unit: 'ch01', step: 'draft' }, { unit: 'ch02', step: 'r1' }] }]);
    expect(quotaOf(plainSnapshot(ledger), RESET)).toEqual([]);
    // The earlier cell's deadline moved to the account's later reset: one countdown.
    expect([ledger.cells['ch01/draft']!.nextRetryAt, ledger.cells['ch02/r1']!.nextRetryAt]).toEqual([RESET, RESET]);
  });

  for (const ascii of [false, true]) {
    it(`header and Health show the same time left at 80×24, NO_COLOR${ascii ? ', --ascii' : ''}`, async () => {
      if (ascii) setOutputCharset('ascii');
      const live = await createLiveWorkspace(copyDemo(), { watch: false });
      const store = createAppStore({ live, ascii });
      const ledger = replayJournal([...quotaExit('r1', 'ch01', 'draft', 'writer', T0), ...quotaExit('r2', 'ch02', 'r1', 'reviewer', T0 + 1000)], T0 + 2000, cfg);
      const waiting = [{ unit: 'ch01', step: 'draft', agent: 'writer', retryAt: RESET, reason: "waiting for the account's reset" }];
      store.setState({ agents: { ...initialAgents(), enabled: true, snap: plainSnapshot(ledger, { waiting }), at: T0 + 2000, agentNames: ['writer', 'reviewer'] } });
      const { frame, press } = await renderRoom(store, live, NO_COLOR_THEME, 24, 80);
      const header = frame().split('\n').slice(0, 3).join('\n');
      // 125 s − 2 s: one countdown, not one per agent.
      expect(header).toContain('quota resets in 2 m 03 s');
      expect(header.match(/quota resets/g)).toHaveLength(1);
      await press('3');
      // The waiting run's row: the account's countdown, not "retrying: attempt 2".
      expect(frame()).toContain("waiting for the account's reset: 2 m 03 s left");
      expect(frame()).not.toMatch(/retrying: attempt/);
      await press('5');
      const health = frame();
      expect(health).toMatch(/quota reset 2 m 03 s left \(\d\d:\d\d:05\) [·-] reviewer, writer wait \(2 cells\)/);
      // Both cells say the account's one reset, the later one: not each its own.
      const said = [...health.matchAll(/reset at (\d\d:\d\d:\d\d)/g)].map((x) => x[1]);
      expect(new Set(said).size).toBeLessThanOrEqual(1);
      // The cells say what they wait for, not "retrying" (no attempt is counted).
      expect(health).toMatch(/ch01 draft\s+quota wait/);
      expect(health).toMatch(/ch02 r1\s+quota wait/);
      for (const line of health.split('\n')) expect(line.length).toBeLessThanOrEqual(80);
      // The terminal edge puts every frame in the charset (anchored-stdout.ts), as here.
      if (ascii) expect(toCharsetInPlace(health, 'ascii').split('\n').filter((l) => /[^\x20-\x7e]/.test(l))).toEqual([]);
    });
  }
});
