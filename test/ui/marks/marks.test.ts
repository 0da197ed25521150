import { afterEach, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { clearMarks, droppedWords, markAll, markedWords, noMarks, pruneMarks, toggleMark, unmark } from '../../../src/ui/marks/marks.js';
import { markKey } from '../../../src/ui/marks/keys.js';
import { refusedLines, resultWords } from '../../../src/ui/marks/words.js';
import { planMarkedPartials } from '../../../src/ui/marks/partials.js';
import { planMarkedCancel, planMarkedReset } from '../../../src/ui/marks/agents.js';
import { closeStores, openStore, STAMP } from '../../helpers/store.js';
import { PHASE_1_2, doneFile, summaries, tempDir, writeFiles } from '../../helpers/workspace.js';
import { settle } from '../../helpers/settle.js';
import { replayJournal } from '../../../src/run/journal/ledger-fold.js';
import type { JournalEvent } from '../../../src/run/journal/journal.js';
import type { SupervisorSnapshot } from '../../../src/run/supervisor/supervisor.js';
import { initialAgents, type AgentsUi } from '../../../src/ui/agents/types.js';
import { listKeys } from '../../../src/ui/views/nav.js';

// Marks (issue 21 item 3) without React or processes: the pure slice (kept by key, pruned
// against the whole list), and m / s / the follow through the store's keys on real files.

afterEach(closeStores);

const UNITS = ['ch01', 'ch02', 'ch03'];
const draft = (u: string): string => `drafts/${u}-draft.md`;
const HALF = (u: string): string => `# ${u} draft\n\nThe writer stopped in the middle of a`;

/** ch01 and ch02 half-written; ch03's draft a suspect (its marker on a tiny body). */
function workspace(): string {
  const root = tempDir('checkroom-marks-unit-');
  const files: Record<string, string> = {
    'checkroom.yaml': `preset: book\nunits: { list: [${UNITS.join(', ')}] }\nbatches: [{ id: 1, units: [${UNITS.join(', ')}] }]\n`,
    ...PHASE_1_2,
    'meta/chapter-summaries.md': summaries([]),
    [draft('ch01')]: HALF('ch01'),
    [draft('ch02')]: HALF('ch02'),
    [draft('ch03')]: 'ok\n\n<!-- DRAFT_COMPLETE -->\n',
  };
  for (const u of UNITS) files[doneFile(u, 'research')[0]] = doneFile(u, 'research')[1];
  writeFiles(root, files);
  settle(root);
  return root;
}

describe('marks, the pure slice', () => {
  it('toggles by key, marks all without doubles, clears, unmarks', () => {
    let m = toggleMark(noMarks(), 'plan', 'cell:a/x');
    m = toggleMark(m, 'plan', 'cell:b/x');
    expect(m.plan).toEqual(['cell:a/x', 'cell:b/x']);
    expect(toggleMark(m, 'plan', 'cell:a/x').plan).toEqual(['cell:b/x']);
    expect(markAll(m, 'plan', ['cell:b/x', 'cell:c/x']).plan).toEqual(['cell:a/x', 'cell:b/x', 'cell:c/x']);
    // Nothing new: the same object, so no subscriber is woken.
    expect(markAll(m, 'plan', ['cell:a/x'])).toBe(m);
    expect(unmark(m, 'plan', ['cell:a/x']).plan).toEqual(['cell:b/x']);
    expect(clearMarks(m, 'plan').plan).toEqual([]);
    expect(m.health).toEqual([]);
  });

  it('prunes the marks whose items left their lists, counts them, and keeps the object when none did', () => {
    const m = { ...noMarks(), plan: ['cell:a/x', 'cell:b/x'], health: ['agent:w'] };
    const r = pruneMarks(m, (v) => (v === 'plan' ? ['cell:b/x', 'cell:c/x'] : ['agent:w']));
    expect(r).toEqual({ marks: { ...m, plan: ['cell:b/x'] }, dropped: 1 });
    expect(pruneMarks(m, () => ['cell:a/x', 'cell:b/x', 'agent:w']).marks).toBe(m);
    expect(droppedWords(1)).toBe('1 mark dropped: its row left the list');
    expect(droppedWords(2)).toBe('2 marks dropped: their rows left the list');
  });

  it('the footer words say what acts on the marks of each view, and nothing without marks', () => {
    const m = { ...noMarks(), partials: ['a'], plan: ['b', 'c'], history: ['1'] };
    expect(markedWords(m, 'partials')).toBe('1 marked: b d m s act on them, U clears');
    expect(markedWords(m, 'plan')).toBe('2 marked: enter x act on them, U clears');
    expect(markedWords(m, 'history')).toBe('1 marked, U clears');
    expect(markedWords(m, 'health')).toBe('');
    expect(markedWords(m, 'progress')).toBe('');
  });

  it('a refusal that names its item says it once; refusals for one reason are named together', () => {
    const refused = [
      { what: 'a.md', why: 'a.md is being written by pid 7 (sh)' },
      { what: 'agent w', why: 'an agent, not a cell' },
      { what: 'agent v', why: 'an agent, not a cell' },
    ];
    expect(refusedLines(refused)).toEqual(['refused: a.md is being written by pid 7 (sh)', 'refused: agent w: an agent, not a cell', 'refused: agent v: an agent, not a cell']);
    expect(resultWords('backed up', ['b.md'], refused)).toBe('backed up b.md; refused a.md (is being written by pid 7 (sh)); refused agent w, agent v (an agent, not a cell)');
    expect(resultWords('backed up', [], [])).toBe('nothing done');
  });
});

describe('marks through the store (real files)', () => {
  it('space (markKey) marks the row under the cursor and moves down; the planners see only marked rows', async () => {
    const r = await openStore(workspace());
    await r.press('2');
    markKey({ set: r.store.setState }, r.s());
    expect(r.s().marks.partials).toEqual([draft('ch01')]);
    expect(r.s().cursors.partials).toBe(1);
    const p = planMarkedPartials(r.s(), 'backup');
    expect('go' in p && p.go.go.map((i) => i.file.path)).toEqual([draft('ch01')]);
    // No supervisor, nothing in flight: x and Z on marks say so, no dialog.
    expect(planMarkedCancel(r.s())).toEqual({ say: 'cancel: none of the 0 marked rows is running', tone: 'warn' });
    expect(planMarkedReset(r.s())).toEqual({ say: 'reset: no marked row is a cell (R resets an agent breaker)', tone: 'warn' });
  });

  it('m on marks: one preview, the suspect refused with the single key\'s reason, the two others kept', async () => {
    const root = workspace();
    const r = await openStore(root);
    await r.press('2', 'V', 'm');
    const d = r.s().dialog!;
    expect(d.title).toBe('Keep 2 marked files: mark them complete (1 refused)');
    // The refusals first: a preview longer than the terminal is cut, and they must be read.
    expect(d.lines).toEqual([
      `refused: ${draft('ch03')} already ends with its marker; back it up or redo it instead`,
      `${draft('ch01')} → ${draft('ch01')}.bak.${STAMP} (a copy), then "<!-- DRAFT_COMPLETE -->" appended`,
      `${draft('ch02')} → ${draft('ch02')}.bak.${STAMP} (a copy), then "<!-- DRAFT_COMPLETE -->" appended`,
    ]);
    await r.press('y');
    for (const u of ['ch01', 'ch02']) {
      expect(readFileSync(join(root, draft(u)), 'utf8')).toBe(`${HALF(u)}\n<!-- DRAFT_COMPLETE -->\n`);
      expect(readFileSync(join(root, `${draft(u)}.bak.${STAMP}`), 'utf8')).toBe(HALF(u));
    }
    expect(r.s().message?.text).toBe(`kept ${draft('ch01')}, ${draft('ch02')}; refused ${draft('ch03')} (already ends with its marker; back it up or redo it instead)`);
    expect(r.s().marks.partials).toEqual([]);
  });

  it('s on marks: one preview, then both hidden; n on the preview changes nothing and keeps the marks', async () => {
    const r = await openStore(workspace());
    await r.press('2', ' ', ' ', 's');
    expect(r.s().dialog?.title).toBe('Skip 2 marked files');
    await r.press('n');
    expect(r.s().skipped).toEqual([]);
    expect(r.s().marks.partials).toEqual([draft('ch01'), draft('ch02')]);
    await r.press('s', 'y');
    expect(r.s().skipped).toEqual([draft('ch01'), draft('ch02')]);
    expect(r.s().message?.text).toBe(`skipped ${draft('ch01')}, ${draft('ch02')}`);
    expect(r.s().marks.partials).toEqual([]);
  });

  it('a marked row that leaves the list drops its mark, and the status line says how many', async () => {
    const root = workspace();
    const r = await openStore(root);
    await r.press('2', 'V');
    expect(r.s().marks.partials).toHaveLength(3);
    // ch01's draft is finished outside checkroom: it leaves the Partials list when the live
    // workspace pushes its next state (as its watch does).
    writeFileSync(join(root, draft('ch01')), doneFile('ch01', 'draft')[1]);
    settle(root);
    await r.live.refresh();
    r.s().setWorkspace(r.live.state, r.live.watching);
    expect(r.s().marks.partials).toEqual([draft('ch02'), draft('ch03')]);
    expect(r.s().message).toEqual({ text: '1 mark dropped: its row left the list', tone: 'warn' });
  });
});

// The Health view sorts its cells by urgency: a cell that fails later sorts above the marked
// one. The supervisor's snapshot is pushed into the store as its feed flushes it.
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

describe('marks through a Health re-sort', () => {
  it('a marked cell keeps its mark when a newly failing cell sorts above it; Z plans the marked cell, not the row at its index', async () => {
    const r = await openStore(workspace());
    r.store.setState({ agents: agentsOf(failed('ch02', 1)) });
    await r.press('5');
    expect(listKeys(r.s(), 'health')).toEqual(['agent:writer', 'cell:ch02/draft']);
    await r.press('j', ' ');
    expect(r.s().marks.health).toEqual(['cell:ch02/draft']);
    // ch01 draft fails too: its row sorts above ch02's, at the marked row's old index.
    r.store.setState({ agents: agentsOf([...failed('ch02', 1), ...failed('ch01', 3)]) });
    expect(listKeys(r.s(), 'health')).toEqual(['agent:writer', 'cell:ch01/draft', 'cell:ch02/draft']);
    expect(r.s().marks.health).toEqual(['cell:ch02/draft']);
    expect(planMarkedReset(r.s())).toMatchObject({ ask: { title: 'Reset the counters of 1 marked cell', pending: { action: { kind: 'reset_cells', cells: [{ unit: 'ch02', step: 'draft' }] } } } });
  });
});
