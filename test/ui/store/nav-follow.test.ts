import { describe, expect, it } from 'vitest';
import { PHASE_1_2, tempDir, writeFiles } from '../../helpers/workspace.js';
import { loadConfig } from '../../../src/pipeline/config/config.js';
import { loadWorkspace } from '../../../src/workspace.js';
import { replayJournal } from '../../../src/run/journal/ledger-fold.js';
import type { JournalEvent } from '../../../src/run/journal/journal.js';
import type { SupervisorSnapshot } from '../../../src/run/supervisor/supervisor.js';
import { initialAgents, type AgentsUi } from '../../../src/ui/agents/types.js';
import { clampCursors, listKeys, navigate, type NavState } from '../../../src/ui/views/nav.js';
import { selectedHealth } from '../../../src/ui/store/selected.js';
import { noPicks } from '../../../src/ui/store/picked.js';

// Selection follows identity in the Health view (issue 8 item 2): its cell rows are sorted,
// so a cell that gets its first attempt lands above the selected one. The pure navigation
// state, built from a real workspace and a real journal fold.

const cfg = { breaker: { threshold: 9, cooldownMs: 1_000, maxCooldownMs: 8_000 }, limits: { maxLaunches: 99, maxConsecutiveFailures: 99 } };
const failed = (unit: string, at: number): JournalEvent[] => [
  { v: 1, type: 'launch', at, runId: `r-${unit}`, unit, step: 'draft', agent: 'writer', attempt: 1, argv: ['w'], cwd: '/w', logPath: '/w/l', pid: null, procStart: null, outputPath: null },
  { v: 1, type: 'exit', at: at + 1, runId: `r-${unit}`, unit, step: 'draft', agent: 'writer', exitCode: 1, signal: null, class: 'UNKNOWN', markerFound: false, cmdFp: 'c', errFp: 'e', keywords: [], errorTail: ['boom'], durationMs: 1 },
];
const agentsOf = (events: JournalEvent[]): AgentsUi => ({
  ...initialAgents(),
  enabled: true,
  agentNames: ['writer'],
  snap: { role: 'driver', holder: null, readonlyReason: null, ledger: replayJournal(events, 10, cfg), runs: [], waiting: [], autopilot: { on: false, paused: false, reason: 'off' }, launchesThisSession: 0, limits: { maxLaunches: 99, maxConsecutiveFailures: 99, consecutiveFailures: 0, breakerThreshold: 9 }, warnings: [], notices: [] } satisfies SupervisorSnapshot,
});

describe('Health view: the cursor follows its row', () => {
  it('a cell sorted above the selected one does not move the selection; a key acts on the row picked', async () => {
    const root = tempDir('checkroom-nav-follow-');
    writeFiles(root, { ...PHASE_1_2, 'checkroom.yaml': 'preset: book\nunits: { list: [ch01, ch02, ch03] }\n' });
    const ws = await loadWorkspace(root, { config: await loadConfig(root) });
    let s: NavState & { picked: ReturnType<typeof noPicks> } = {
      view: 'health', cursors: { progress: 0, partials: 0, plan: 0, sources: 0, health: 0, history: 0 }, cell: { row: 0, col: 0 }, filter: '', skipped: [], redoQueue: [], pageSize: 10,
      help: { open: false, offset: 0 }, agents: agentsOf(failed('ch02', 1)), ws, picked: noPicks(),
    };
    expect(listKeys(s, 'health')).toEqual(['agent:writer', 'cell:ch02/draft']);
    s = { ...s, ...navigate(s, 'move.down') } as typeof s;
    expect(s.picked.health).toBe('cell:ch02/draft');
    // ch01 draft fails too: its row sorts above ch02's.
    const agents = agentsOf([...failed('ch02', 1), ...failed('ch01', 3)]);
    s = { ...s, agents, ...clampCursors({ ...s, agents }) } as typeof s;
    expect(listKeys(s, 'health')).toEqual(['agent:writer', 'cell:ch01/draft', 'cell:ch02/draft']);
    expect(s.cursors.health).toBe(2);
    const p = selectedHealth(s);
    expect(p && 'item' in p && p.item.kind === 'cell' ? p.item.cell.key : null).toBe('ch02/draft');
  });
});
