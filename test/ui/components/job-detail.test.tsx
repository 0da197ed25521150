import { afterEach, describe, expect, it } from 'vitest';
import { createLiveWorkspace } from '../../../src/live/live-workspace.js';
import { createAppStore } from '../../../src/ui/store/store.js';
import { NO_COLOR_THEME } from '../../../src/text/theme.js';
import { replayJournal } from '../../../src/run/journal/ledger-fold.js';
import type { JournalEvent } from '../../../src/run/journal/journal.js';
import type { SupervisorSnapshot } from '../../../src/run/supervisor/supervisor.js';
import { initialAgents, type AgentsUi } from '../../../src/ui/agents/types.js';
import { renderRoom, tick, unmountAll } from '../../helpers/ink.js';
import { PHASE_1_2, tempDir, writeFiles } from '../../helpers/workspace.js';

// A cell's cluster jobs on screen (issue 22 items 1, 2, 6), at 80×24 with NO_COLOR and
// --ascii: the cell detail and Health read the node, the queue wait apart from the run time,
// Slurm's accounting (or "accounting is off") and the node that died under an earlier job from
// the operator model, escaped where they are drawn. The journal is the one a real two-node run
// writes (test/core/run/executors/slurm-two-nodes.test.ts), with a hostile node name.

const cfg = { breaker: { threshold: 5, cooldownMs: 1_000, maxCooldownMs: 8_000 }, limits: { maxLaunches: 99, maxConsecutiveFailures: 99 } };
const T = 1_796_195_000_000;
const launch = (runId: string, at: number, attempt: number, jobId: string): JournalEvent => ({ v: 1, type: 'launch', at, runId, unit: 'ch01', step: 'research', agent: 'researcher', attempt, argv: ['w'], cwd: '/w', logPath: '/w/l', pid: null, procStart: null, outputPath: null, executor: 'slurm', jobId });
const exit = (runId: string, at: number, cls: 'INFRA' | 'SUCCESS', durationMs: number, queueWaitMs: number, error = ''): JournalEvent => ({ v: 1, type: 'exit', at, runId, unit: 'ch01', step: 'research', agent: 'researcher', exitCode: cls === 'SUCCESS' ? 0 : null, signal: null, class: cls, markerFound: cls === 'SUCCESS', cmdFp: 'c', errFp: cls === 'SUCCESS' ? '' : 'e', keywords: [], errorTail: cls === 'SUCCESS' ? [] : [error], error, durationMs, queueWaitMs });
const ids = (runId: string, jobId: string) => ({ runId, unit: 'ch01', step: 'research', executor: 'slurm', jobId });

const journal = (accounting: boolean): JournalEvent[] => [
  launch('r1', T, 1, '41'),
  { v: 1, type: 'job', phase: 'started', at: T + 2_000, ...ids('r1', '41'), node: 'n1', submitAt: T, startAt: T + 1_000, queueWaitMs: 1_000 },
  exit('r1', T + 30_000, 'INFRA', 30_000, 1_000, 'INFRA: Slurm NODE_FAIL (NodeDown) on node n1'),
  accounting
    ? { v: 1, type: 'job', phase: 'finished', at: T + 31_000, ...ids('r1', '41'), node: 'n1', accounting: 'sacct', state: 'NODE_FAIL', elapsedMs: 27_000, maxRssKiB: null, exitCode: '0:0' }
    : { v: 1, type: 'job', phase: 'finished', at: T + 31_000, ...ids('r1', '41'), node: 'n1', accounting: 'off', note: 'sacct: Slurm accounting storage is disabled' },
  launch('r2', T + 31_000, 2, '42'),
  // A node name with a terminal escape in it: drawn escaped, never raw.
  { v: 1, type: 'job', phase: 'started', at: T + 35_000, ...ids('r2', '42'), node: 'n2\u001b]0;pwn\u0007', submitAt: T + 31_000, startAt: T + 34_000, queueWaitMs: 3_000 },
  exit('r2', T + 45_000, 'SUCCESS', 14_000, 3_000),
  accounting
    ? { v: 1, type: 'job', phase: 'finished', at: T + 46_000, ...ids('r2', '42'), node: 'n2\u001b]0;pwn\u0007', accounting: 'sacct', state: 'COMPLETED', elapsedMs: 11_000, maxRssKiB: 66_192, exitCode: '0:0' }
    : { v: 1, type: 'job', phase: 'finished', at: T + 46_000, ...ids('r2', '42'), node: 'n2\u001b]0;pwn\u0007', accounting: 'off', note: 'sacct: Slurm accounting storage is disabled' },
];

const agentsOf = (events: JournalEvent[]): AgentsUi => ({
  ...initialAgents(),
  enabled: true,
  agentNames: ['researcher'],
  snap: { role: 'driver', holder: null, readonlyReason: null, ledger: replayJournal(events, T + 50_000, cfg), runs: [], waiting: [], autopilot: { on: false, paused: false, reason: 'off' }, launchesThisSession: 0, limits: { maxLaunches: 99, maxConsecutiveFailures: 99, consecutiveFailures: 0, breakerThreshold: 5 }, warnings: [], notices: [] } satisfies SupervisorSnapshot,
});

async function mount(accounting: boolean) {
  const root = tempDir('checkroom-job-detail-');
  writeFiles(root, { ...PHASE_1_2, 'checkroom.yaml': 'preset: book\nunits: { list: [ch01] }\n' });
  const live = await createLiveWorkspace(root, { watch: false });
  const store = createAppStore({ live, ascii: true, now: () => new Date(T + 50_000) });
  await store.getState().idle();
  store.setState({ agents: agentsOf(journal(accounting)) });
  const room = await renderRoom(store, live, NO_COLOR_THEME, 24, 80);
  const waitFor = async (text: string) => {
    for (const t0 = Date.now(); !room.frame().includes(text); await tick(20)) if (Date.now() - t0 > 5000) throw new Error(`no ${text} in:\n${room.frame()}`);
  };
  return { ...room, waitFor };
}

afterEach(async () => {
  await unmountAll();
});

const row = (f: string, key: string): string => f.split('\n').find((l) => l.startsWith(key.padEnd(11))) ?? '';

describe('a cell\'s cluster jobs on screen', () => {
  it('the cell detail: the job, its node, queued apart from ran, sacct\'s figures, the node that died under the earlier job', async () => {
    const m = await mount(true);
    await m.press('1', '\r');
    await m.waitFor('(esc back');
    const f = m.frame();
    expect(row(f, 'job')).toMatch(/^job\s+slurm job 42 on n2.*· queued 3 s · ran 11 s$/);
    expect(row(f, 'sacct')).toMatch(/^sacct\s+COMPLETED · elapsed 11 s · max RSS 64\.6 MiB · exit 0:0$/);
    expect(row(f, 'earlier')).toMatch(/^earlier\s+slurm job 41 on n1 · INFRA NODE_FAIL · queued 1 s · ran 29 s$/);
    expect(m.raw()).not.toContain('\u001b]0;pwn');
    for (const l of f.split('\n')) expect(l.length).toBeLessThanOrEqual(80);
  });

  it('without slurmdbd the detail says accounting is off and keeps checkroom\'s own figures', async () => {
    const m = await mount(false);
    await m.press('1', '\r');
    await m.waitFor('(esc back');
    expect(row(m.frame(), 'sacct')).toMatch(/^sacct\s+accounting is off · own figures: queued 3 s, ran 11 s · sacct: Slurm/);
    expect(row(m.frame(), 'earlier')).toMatch(/^earlier\s+slurm job 41 on n1 · INFRA · queued 1 s · ran 29 s$/);
  });

  it('Health: the cell\'s detail names its job\'s node, queue wait and run time, and the INFRA error the node that died', async () => {
    const m = await mount(true);
    await m.press('5');
    await m.waitFor('Health');
    const f = m.frame();
    expect(f).toContain('agent slurm:infra');
    await m.press(...Array(6).fill('j'));
    const g = m.frame();
    expect(g).toMatch(/ch01 research \(researcher\): done/);
    expect(g).toMatch(/ {2}job: slurm job 42 on n2\\e\]0;pwn\\a · queued 3 s · ran 11 s/);
    expect(g).toContain('last error: INFRA: Slurm NODE_FAIL (NodeDown) on node n1');
    expect(m.raw()).not.toContain('\u001b]0;pwn');
  });
});
