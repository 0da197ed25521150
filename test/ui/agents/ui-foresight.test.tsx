import { afterEach, describe, expect, it } from 'vitest';
import stringWidth from 'string-width';
import { createLiveWorkspace } from '../../../src/live/live-workspace.js';
import { createAppStore } from '../../../src/ui/store/store.js';
import { NO_COLOR_THEME } from '../../../src/text/theme.js';
import { initialAgents } from '../../../src/ui/agents/types.js';
import { operatorOf } from '../../../src/ui/store/operator.js';
import { replayJournal } from '../../../src/run/journal/ledger-fold.js';
import type { JournalEvent } from '../../../src/run/journal/journal.js';
import { DEFAULT_LIMITS } from '../../../src/pipeline/defaults.js';
import { etaLine } from '../../../src/foresight/words.js';
import { foresightHeight } from '../../../components/views/ForesightLines.js';
import { renderRoom, unmountAll } from '../../helpers/ink.js';
import { copyDemo } from '../../helpers/workspace.js';
import { plainSnapshot } from '../../helpers/snapshot.js';

// The Progress view's foresight rows at 80×24 (docs/foresight.md): the ETA with the
// throughput sparkline, the cost forecast under it; the ETA moves when an exit is folded.

afterEach(unmountAll);

const T = Date.UTC(2026, 11, 1, 12, 0, 0);
const cfg = { breaker: { threshold: 3, cooldownMs: 60_000, maxCooldownMs: 600_000 }, limits: { maxLaunches: 1000, maxConsecutiveFailures: 10 } };
const budget = { costUsd: { session: null, workspace: 40 }, tokens: { session: null, workspace: null } };

let seq = 0;
/** A successful attempt of `step` by `agent` that ended at `end`, 60 s long, costing $1. */
function success(step: string, agent: string, end: number): JournalEvent[] {
  const runId = `r${++seq}`;
  return [
    { v: 1, type: 'launch', at: end - 60_000, runId, unit: 'ch00', step, agent, attempt: 1, argv: ['x'], cwd: '/x', logPath: '/x/l', pid: null, procStart: null, outputPath: null },
    { v: 1, type: 'exit', at: end, runId, unit: 'ch00', step, agent, exitCode: 0, signal: null, class: 'SUCCESS', markerFound: true, cmdFp: 'c', errFp: '', keywords: [], errorTail: [], durationMs: 60_000 },
    { v: 1, type: 'agent_facts', at: end, runId, unit: 'ch00', step, agent, sessionId: null, costUsd: 1, tokensIn: 1, tokensOut: 1, cacheRead: 0, cacheWrite: 0, apiRetries: 0, cutMidTool: false },
  ] as JournalEvent[];
}

async function room(ascii: boolean) {
  const live = await createLiveWorkspace(copyDemo(), { watch: false });
  const store = createAppStore({ live });
  const ws = store.getState().ws;
  // Three samples of every step but html, which has two: the ETA waits for one more.
  const events = ws.pipeline.steps.flatMap((s) => [1, 2, 3].slice(0, s.id === 'html' ? 2 : 3).flatMap((i) => success(s.id, s.agent ?? 'writer', T - i * 300_000)));
  const concurrency = Object.fromEntries([...new Set(ws.pipeline.steps.map((s) => s.agent ?? 'writer'))].map((a) => [a, 2]));
  const show = (evs: JournalEvent[], at: number) => {
    const ledger = replayJournal(evs, at, { ...cfg, limits: { ...cfg.limits, budget } });
    store.setState({ ascii, agents: { ...initialAgents(), enabled: true, snap: plainSnapshot(ledger), at, limits: { ...DEFAULT_LIMITS, budget }, agentNames: Object.keys(concurrency), concurrency } });
  };
  show(events, T);
  const r = await renderRoom(store, live, NO_COLOR_THEME, 24, 80);
  return { ...r, store, events, show };
}

describe('foresight in Progress at 80×24', () => {
  it('shows the ETA, the sparkline and the cost forecast, within 80 columns and 24 rows; one more exit turns batch 1\'s "after 1 more html step" into a time', async () => {
    const { frame, store, events, show, press } = await room(false);
    const f0 = frame();
    const lines = f0.split('\n');
    expect(lines.length).toBeLessThanOrEqual(24);
    for (const l of lines) expect(stringWidth(l), l).toBeLessThanOrEqual(80);
    expect(f0).toContain('after 1 more html step');
    // 29 successes (three of each step, two of html) in the last hour: the newest hour is the tallest block.
    expect(f0).toMatch(/done\/h [▁▂▃▄▅▆▇█]{11}█ 29/);
    expect(f0).toMatch(/to finish ~\$\d+\.\d\d · at this rate the workspace budget runs out at ch\d+ \w+/);
    expect(foresightHeight(operatorOf(store.getState()).foresight, false)).toBe(2);
    show([...events, ...success('html', 'publisher', T - 1000)], T + 2000);
    await press('1');
    const f1 = frame();
    const eta = etaLine(operatorOf(store.getState()).foresight);
    // Batch 1 now has a time; the pipeline still waits for the demo's cells that need a human.
    expect(eta).toMatch(/^ETA batch 1 in \d+m · phase 3 after \d+ cells? that needs? you/);
    expect(f1).toContain(eta.slice(0, 30));
    expect(f1).not.toContain('after 1 more html step');
    expect(f1).toMatch(/done\/h \S{12} 30/);
  });

  it('under --ascii the sparkline is an ASCII ramp: no block element reaches the frame', async () => {
    const { frame } = await room(true);
    const f = frame();
    expect(f).toMatch(/done\/h [_.\-:=+*#]{11}# 29/);
    expect(f).not.toMatch(/[▁▂▃▄▅▆▇█]/);
  });
});
