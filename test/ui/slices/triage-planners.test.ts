import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppState } from '../../../src/ui/store/types.js';
import { partialItems } from '../../../src/ui/store/select.js';
import { initialAgents } from '../../../src/ui/agents/types.js';
import {
  afterMoves,
  afterUndo,
  checkpointAsk,
  conservativeAsk,
  freshConservative,
  keepAsk,
  moveAsk,
  movesOutcome,
  planConservative,
  planFresh,
  planKeep,
  planPick,
  planUndo,
  undoAsk,
} from '../../../src/ui/triage/planners.js';
import { closeStores, openStore } from '../../helpers/store.js';
import type { Liveness } from '../../../src/holders/liveness.js';
import { copyDemo } from '../../helpers/workspace.js';

// The triage slice's pure planners (issue 9 item 3) on plain values: one state scanned from a
// copy of the demo workspace, then plain copies of it with a cursor, a writer or an undo
// stack changed. No store runs them and nothing touches the disk.

let base: AppState;
beforeAll(async () => {
  base = (await openStore(copyDemo())).s();
});
afterAll(closeStores);

/** Partials view, the cursor on the row of `path`. */
const on = (path: string, patch: Partial<AppState> = {}): AppState => {
  const i = partialItems(base.ws, '', []).findIndex((x) => x.file.path === path);
  expect(i).toBeGreaterThanOrEqual(0);
  return { ...base, view: 'partials', cursors: { ...base.cursors, partials: i }, picked: { ...base.picked, partials: null }, ...patch };
};
const itemOf = (path: string) => partialItems(base.ws, '', []).find((x) => x.file.path === path)!;

const RESEARCH = 'research/ch07-research.md';

describe('planPick', () => {
  it('goes with the picked partial', () => {
    expect(planPick(on(RESEARCH))).toEqual({ go: itemOf(RESEARCH) });
  });

  it('says nothing is selected on an empty list', () => {
    const s = { ...on(RESEARCH), ws: { ...base.ws, partials: [], suspects: [] } };
    expect(planPick(s)).toEqual({ say: 'nothing selected', tone: 'warn' });
  });

  it('refuses a picked partial that left the list, and repicks the row now shown', () => {
    const s = on(RESEARCH, { picked: { ...base.picked, partials: 'gone/file.md' } });
    const d = planPick(s);
    expect(d).toMatchObject({
      change: { message: { text: 'gone/file.md left the list: nothing was done (the cursor is on the row now shown)', tone: 'warn' } },
    });
  });

  it('refuses a file with a live writer, naming it (issue 8 item 1)', () => {
    const s = on(RESEARCH, { agents: { ...initialAgents(), writers: [] } });
    const running = { ...s, ws: { ...s.ws, cells: s.ws.cells.map((c) => (c.path === RESEARCH ? { ...c, status: 'running' as const } : c)) } };
    expect(planPick(running)).toEqual({ say: `${RESEARCH} is being written: hands off until it stops (no back-up, keep or redo)`, tone: 'warn' });
  });
});

describe('the dialogs', () => {
  it('b names the backup; d also queues the step', () => {
    const item = itemOf(RESEARCH);
    const moves = [{ path: RESEARCH, backup: `${RESEARCH}.bak.X` }];
    expect(moveAsk(item, false, moves, [])).toEqual({
      title: `Back up ${RESEARCH}`,
      lines: [`${RESEARCH} → ${RESEARCH}.bak.X`],
      pending: { type: 'moves', moves, redo: [] },
      seen: [],
    });
    const redo = moveAsk(item, true, moves, []);
    expect(redo.title).toBe('Redo ch07 research: back up the file and queue the step');
    expect(redo.lines.at(-1)).toBe('queue ch07 research for relaunch (shown in the Plan view)');
    expect(redo.pending).toEqual({ type: 'moves', moves, redo: [{ unit: 'ch07', step: 'research', path: RESEARCH }] });
  });

  it('c takes the almost-certain partials only, and leaves one being written alone, saying so', () => {
    expect(planConservative(base)).toEqual({ go: { targets: [itemOf(RESEARCH)], left: '' } });
    const writing = { ...base, ws: { ...base.ws, cells: base.ws.cells.map((c) => (c.path === RESEARCH ? { ...c, status: 'running' as const } : c)) } };
    expect(planConservative(writing)).toEqual({
      say: 'conservative strategy: no almost_certainly_partial file to back up (1 being written, left alone)',
      tone: 'info',
    });
    const ask = conservativeAsk({ targets: [itemOf(RESEARCH)], left: '2 being written, left alone' }, [{ path: RESEARCH, backup: 'b' }], []);
    expect(ask.title).toBe('Conservative strategy: back up 1 almost-certain partial and redo');
    expect(ask.lines).toEqual([`${RESEARCH} → b`, 'queue 1 step for relaunch (shown in the Plan view)', '2 being written, left alone until it stops']);
  });

  it('m keeps a partial with its step marker; a suspect already has one', () => {
    expect(planKeep(base, itemOf(RESEARCH))).toEqual({ go: 'RESEARCH_COMPLETE' });
    const suspect = partialItems(base.ws, '', []).find((x) => x.section === 'suspect')!;
    expect(planKeep(base, suspect)).toEqual({ say: `${suspect.file.path} already ends with its marker; back it up or redo it instead`, tone: 'warn' });
    const noMarker = {
      ...base,
      ws: { ...base.ws, pipeline: { ...base.ws.pipeline, steps: base.ws.pipeline.steps.map((st) => (st.id === 'research' ? { ...st, marker: null } : st)) } },
    } as AppState;
    expect(planKeep(noMarker, itemOf(RESEARCH))).toEqual({ say: 'step research has no marker to append', tone: 'warn' });
    expect(keepAsk(itemOf(RESEARCH), 'RESEARCH_COMPLETE', 'b', []).lines).toEqual([
      `${RESEARCH} → b (a copy; the file stays)`,
      `${RESEARCH}: append "<!-- RESEARCH_COMPLETE -->" as the last line`,
    ]);
  });

  it('u undoes the last group, moving its files back in reverse order', () => {
    expect(planUndo(base)).toEqual({ say: 'nothing to undo: no backup was made in this session', tone: 'info' });
    const group = {
      id: 'g',
      label: '2 backups',
      moves: [
        { path: 'a', backup: 'a.bak' },
        { path: 'b', backup: 'b.bak' },
      ],
    };
    expect(planUndo({ ...base, undo: [group] })).toEqual({ go: group });
    expect(undoAsk(group, []).lines).toEqual(['b.bak → b', 'a.bak → a']);
  });

  it('w names the cells that change, in glyphs or in ascii, then shows the whole line diff (issue 17 item 2)', () => {
    const lines = ['@@ -3,1 +3,1 @@', '-| ch01 | ⏳ |', '+| ch01 | ✅ |'];
    const diff = { file: 'checkpoint.md', exists: true, changes: [{ key: 'ch01/draft', before: null, after: 'done' }], lines } as Parameters<typeof checkpointAsk>[0];
    const glyphs = checkpointAsk(diff, false);
    expect(glyphs.title).toBe('Rewrite checkpoint.md: 1 cell change');
    expect(glyphs.lines).toEqual([
      'checkpoint.md → checkpoint.md.bak.<time of the write> (a copy of the old file)',
      'checkpoint.md: rewritten from the disk; 1 cell changes: ch01/draft (none)→✅',
      'every line that changes (- now, + after), the rest of the file stays as it is:',
      '  @@ -3,1 +3,1 @@',
      '  -| ch01 | ⏳ |',
      '  +| ch01 | ✅ |',
    ]);
    expect(checkpointAsk(diff, true).lines[1]).toMatch(/^[ -~]+$/);
    const many = { ...diff, changes: Array.from({ length: 9 }, (_, i) => ({ key: `ch0${i + 1}/draft`, before: null, after: 'done' as const })) };
    expect(checkpointAsk(many, false).lines[1]).toMatch(/ch04\/draft \(none\)→✅, 5 more$/);
    expect(checkpointAsk({ ...diff, exists: false, changes: [], lines: [] }, false).lines.slice(0, 3)).toEqual(['checkpoint.md is created', 'checkpoint.md: rewritten from the disk; 0 cells change', 'no line of the file changes']);
  });
});

describe('after the moves and the undo', () => {
  const at = new Date(1_000);
  const pending = { type: 'moves' as const, moves: [{ path: RESEARCH, backup: 'planned' }], redo: [{ unit: 'ch07', step: 'research', path: RESEARCH }] };

  it('journals a redo decision and the queue, and pushes one undo group with the names actually used', () => {
    const out = movesOutcome(base.ws, pending, [{ path: RESEARCH, backup: 'used' }], at, 2_000);
    expect(out.decisions).toEqual([
      { kind: 'redo', unit: 'ch07', step: 'research', path: RESEARCH, backupPath: 'used', note: 'backed up and queued for relaunch' },
    ]);
    expect(out.queued).toEqual([{ unit: 'ch07', step: 'research', path: RESEARCH, backup: 'used', queuedAt: 2_000 }]);
    expect(out.events.map((e) => e.type)).toEqual(['redo_queued', 'undo_pushed']);
    expect(out.group).toEqual({ id: '1000:used', label: `backup of ${RESEARCH}`, moves: [{ path: RESEARCH, backup: 'used' }] });
  });

  it('a new redo of a cell replaces its older entry; the message fits 80 columns', () => {
    const out = movesOutcome(base.ws, pending, [{ path: RESEARCH, backup: `${RESEARCH}.bak.1` }], at, 2_000);
    const old = { unit: 'ch07', step: 'research', path: RESEARCH, backup: 'older', queuedAt: 1 };
    const other = { unit: 'ch01', step: 'draft', path: 'x', backup: 'y', queuedAt: 1 };
    const next = afterMoves({ undo: [], redoQueue: [old, other] }, out);
    expect(next.redoQueue).toEqual([other, ...out.queued]);
    expect(next.undo).toEqual([out.group]);
    expect(next.message).toEqual({ text: `${RESEARCH} → ….bak.1, 1 queued (u undoes)`, tone: 'ok' });
  });

  it('an undo takes its group off the stack and its files off the redo queue', () => {
    const group = { id: 'g', label: 'l', moves: [{ path: RESEARCH, backup: 'b' }] };
    const keep = { id: 'h', label: 'l', moves: [] };
    const q = { unit: 'ch07', step: 'research', path: RESEARCH, backup: 'b', queuedAt: 1 };
    expect(afterUndo({ undo: [keep, group], redoQueue: [q] }, group, [RESEARCH])).toEqual({
      undo: [keep],
      redoQueue: [],
      message: { text: `restored ${RESEARCH}`, tone: 'ok' },
    });
  });
});

describe('what the disk says at decision time (issue 17 item 1)', () => {
  const held = (path: string): Liveness => ({
    path,
    unchecked: 0,
    live: true,
    kind: 'held',
    holders: [{ pid: 4242, command: 'node', pgrp: 4242, startMs: new Date(2026, 10, 30, 21, 4).getTime(), ours: false }],
  });
  const quiet = (path: string): Liveness => ({ path, unchecked: 0, live: false });

  it('refuses a file a process holds open for writing, naming it; goes on a quiet one', () => {
    expect(planFresh(new Map([[RESEARCH, held(RESEARCH)]]))).toEqual({
      say: `${RESEARCH} is being written by pid 4242 (node) since 21:04 (not launched by checkroom): no back-up, keep or redo until it stops`,
      tone: 'warn',
    });
    expect(planFresh(new Map([[RESEARCH, { path: RESEARCH, unchecked: 0, live: true, kind: 'recent', agoMs: 1_200, quietMs: 3_000 }]]))).toEqual({
      say: `${RESEARCH} changed 1.2 s ago, within the quiet window (3 s) (a writer may be pausing, here or on another host): no back-up, keep or redo until it stops`,
      tone: 'warn',
    });
    expect(planFresh(new Map([[RESEARCH, quiet(RESEARCH)]]))).toBeNull();
  });

  it('c drops the files the disk now shows live, counting them with the ones left alone', () => {
    const c = { targets: [itemOf(RESEARCH)], left: '' };
    expect(freshConservative(c, new Map([[RESEARCH, quiet(RESEARCH)]]))).toEqual({ go: c });
    expect(freshConservative(c, new Map([[RESEARCH, held(RESEARCH)]]))).toEqual({
      say: 'conservative strategy: no almost_certainly_partial file to back up (1 being written, left alone)',
      tone: 'info',
    });
  });
});
