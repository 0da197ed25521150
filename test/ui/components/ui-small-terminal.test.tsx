import { afterEach, describe, expect, it } from 'vitest';
import { closeSync, ftruncateSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import stringWidth from 'string-width';
import { stripVTControlCharacters } from 'node:util';
import { createLiveWorkspace } from '../../../src/live/live-workspace.js';
import { createAppStore } from '../../../src/ui/store/store.js';
import { COLOR_THEME, NO_COLOR_THEME, type Theme } from '../../../src/text/theme.js';
import { operatorOf } from '../../../src/ui/store/operator.js';
import { loadConfig } from '../../../src/pipeline/config/config.js';
import { openSupervisor, type Supervisor } from '../../../src/run/supervisor/supervisor.js';
import { planCommand } from '../../../src/cli/commands/core-commands.js';
import { makePaint } from '../../../src/text/paint.js';
import { nextLine, whereWidth } from '../../../src/text/layout.js';
import type { NextStep, PlanAction } from '../../../src/types.js';
import { ACTION_WORDS, actionWord } from '../../../src/plan/action-words.js';
import { renderRoom, tick, unmountAll } from '../../helpers/ink.js';
import { copyDemo } from '../../helpers/workspace.js';

// Layout on small and standard terminals (60×15, 80×24) on a copy of the demo with its real
// (idle) supervisor: every list shows the rows its window counter names, no box draws over
// another, columns keep at least one space between them, and every frame fits the terminal
// in NO_COLOR and ASCII modes.

const BIG = 'drafts/ch05-draft.md';

const sups: Supervisor[] = [];
afterEach(async () => {
  await unmountAll();
  for (const s of sups.splice(0)) await s.close({ cancel: true });
});

async function mount(o: { rows: number; columns: number; theme?: Theme; ascii?: boolean }) {
  const root = copyDemo();
  // Two backups of a half-product: a small one and one too large to diff (a sparse 50 MB file).
  const fd = openSync(join(root, `${BIG}.bak.20261129-100000`), 'w');
  ftruncateSync(fd, 50_000_000);
  closeSync(fd);
  writeFileSync(join(root, `${BIG}.bak.20261129-110000`), `an extra line\n${readFileSync(join(root, BIG), 'utf8')}`);
  const config = await loadConfig(root);
  const sup = await openSupervisor({ root, config });
  sups.push(sup);
  const live = await createLiveWorkspace(root, { watch: false });
  const store = createAppStore({ live, ascii: o.ascii, agents: { sup, config } });
  const { raw, frame, press } = await renderRoom(store, live, o.theme ?? NO_COLOR_THEME, o.rows, o.columns);
  const waitFor = async (text: string | RegExp, timeout = 5000) => {
    const t0 = Date.now();
    while (!(typeof text === 'string' ? frame().includes(text) : text.test(frame()))) {
      if (Date.now() - t0 > timeout) throw new Error(`timed out waiting for ${text}; frame:\n${frame()}`);
      await tick(20);
    }
  };
  await waitFor(/\[1 Progress\]/);
  const lines = () => frame().split('\n');
  const openBackups = async () => {
    const idx = store.getState().ws.partials.findIndex((p) => p.path === BIG);
    expect(idx).toBeGreaterThanOrEqual(0);
    await press('2', 'g', ...Array<string>(idx).fill('j'), 'B');
    await waitFor(`Backups of ${BIG} 2 found`);
    await waitFor(/48828\.1 KB/);
  };
  return { raw, frame, lines, press, waitFor, store, openBackups };
}

/** The Health rows the window counter `a-b/n` in the frame names, checked against the frame. */
function healthWindow(frame: string): { start: number; end: number; total: number } {
  const m = /(\d+)-(\d+)\/(\d+)\s*$/m.exec(frame.split('\n').find((l) => l.startsWith('launches ')) ?? '');
  expect(m, frame).not.toBeNull();
  return { start: Number(m![1]), end: Number(m![2]), total: Number(m![3]) };
}

describe('Health list windowing', () => {
  for (const [columns, rows] of [
    [60, 15],
    [80, 24],
  ] as const) {
    it(`shows every row the window counter names, the selected one marked, at ${columns}×${rows}`, async () => {
      const m = await mount({ rows, columns });
      await m.press('5');
      await m.waitFor(/^launches \d+ of /m);
      const names = operatorOf(m.store.getState()).health.map((it) => (it.kind === 'agent' ? `agent ${it.agent}` : `${it.cell.unit} ${it.cell.step}`));
      expect(names.length).toBeGreaterThan(5);
      const check = (selected: number) => {
        const f = m.frame();
        const w = healthWindow(f);
        expect(w.total).toBe(names.length);
        const listed = f.split('\n').filter((l) => /^[ ›] (agent \S+|\S+ \S+) /.test(l) && names.some((n) => l.slice(2).startsWith(`${n} `)));
        // Exactly the rows start..end, in order, and the cursor's row among them.
        expect(listed.map((l) => names.find((n) => l.slice(2).startsWith(`${n} `))), f).toEqual(names.slice(w.start - 1, w.end));
        expect(listed.find((l) => l.startsWith('› ')), f).toMatch(new RegExp(`^› ${names[selected]} `));
        return w;
      };
      expect(check(0).start).toBe(1);
      await m.press('G');
      expect(check(names.length - 1).end).toBe(names.length);
      await m.press('k');
      check(names.length - 2);
      await m.press('g');
      expect(check(0).start).toBe(1);
    });
  }
});

describe('Sources view on a short terminal', () => {
  it('keeps the summary line intact above the level columns at 60×15, and shows the selected row', async () => {
    const m = await mount({ rows: 15, columns: 60 });
    await m.press('4');
    await m.waitFor('[4 Sources');
    const l = m.lines();
    const tabs = l.findIndex((x) => x.includes('[4 Sources'));
    // The view's first line is the summary line, the next the level columns, each whole.
    expect(l[tabs + 1]).toMatch(/^checkpoint\.md \(zh\) updated /);
    expect(l[tabs + 1]).not.toContain('│');
    expect(l[tabs + 2]).toMatch(/^1 checkpoint\.md +│2 todos\.db +│3 disk \(decides\)\s*$/);
    expect(l.filter((x) => x.includes('unit step'))).toHaveLength(1);
    const first = m.store.getState().ws.discrepancies[0]!;
    expect(l.find((x) => x.startsWith('› ')), m.frame()).toMatch(new RegExp(`^› ${first.unit} ${first.step} `));
    // Moving down keeps the cursor's row on screen.
    await m.press('j', 'j', 'j', 'j');
    expect(m.lines().filter((x) => x.startsWith('› '))).toHaveLength(1);
    expect(m.lines()[tabs + 1]).toMatch(/^checkpoint\.md \(zh\) updated /);
  });
});

/** The start of `line` that is `cols` terminal columns wide. */
const head = (line: string, cols: number): string => {
  let out = '';
  for (const ch of line) {
    if (stringWidth(out + ch) > cols) break;
    out += ch;
  }
  return out;
};

/** The text right after `word` in `line`: must start with a space (or the column was cut with …). */
const after = (line: string, word: string): string => line.slice(line.indexOf(word) + word.length);

describe('columns keep a space between them at 80×24', () => {
  it('Plan: the action column fits "rebuild memory", and every reason starts in the same column', async () => {
    const m = await mount({ rows: 24, columns: 80 });
    await m.press('3');
    await m.waitFor('[3 Plan');
    const rowsOf = m.lines().filter((l) => /^[ ›] P\d /.test(l));
    expect(rowsOf.length).toBeGreaterThan(3);
    const memory = rowsOf.find((l) => l.includes('rebuild memory'));
    expect(memory, m.frame()).toBeDefined();
    expect(after(memory!, 'rebuild memory')).toMatch(/^ +rebuild /);
    const starts = rowsOf.map((l) => {
      const n = m.store.getState().ws.next.find((s) => l.includes(` ${s.unit} ${s.step} `) && l.includes(actionWord(s.action)))!;
      const word = actionWord(n.action);
      return stringWidth(l.slice(0, l.indexOf(word) + word.length)) + (/^ +/.exec(after(l, word))?.[0].length ?? 0);
    });
    expect(new Set(starts).size).toBe(1);
    // A queued redo (tag `Q `, one column narrower than `P1 `) keeps the same action column.
    m.store.setState({ redoQueue: [{ unit: 'ch05', step: 'draft', path: 'drafts/ch05-draft.md', backup: 'drafts/ch05-draft.md.bak.1', queuedAt: 0 }] });
    await m.waitFor(/Q ch05 draft +queued redo +backed up to/);
    const actionAt = (l: string, word: string) => stringWidth(l.slice(0, l.indexOf(word)));
    const queued = m.lines().find((l) => l.includes('queued redo'))!;
    const retry = m.lines().find((l) => / P1 ch03 r2 +retry /.test(l))!;
    expect(actionAt(queued, 'queued redo'), `${queued}\n${retry}`).toBe(actionAt(retry, 'retry'));
  });

  it('Sources: a todo whose disk column is not_started is followed by a space before its note', async () => {
    const m = await mount({ rows: 24, columns: 80 });
    await m.press('4');
    await m.waitFor('[4 Sources');
    const todo = m.lines().find((l) => /^[ ›] todo \S+ .*not_start/.test(l));
    expect(todo, m.frame()).toBeDefined();
    expect(todo).toMatch(/ not_started +the todo table/);
    // The note starts in the column its heading names, on every disagreement row.
    const heading = m.lines().find((l) => l.includes('unit step'))!;
    const noteAt = stringWidth(heading.slice(0, heading.indexOf('note')));
    const rows = m.lines().filter((x) => /^[ ›] (todo )?ch\d\d/.test(x));
    expect(rows.length).toBeGreaterThan(4);
    for (const l of rows) {
      expect(stringWidth(head(l, noteAt)), l).toBe(noteAt);
      expect(head(l, noteAt), `${l}\n${heading}`).toMatch(/ $/);
      expect(l.slice(head(l, noteAt).length), `${l}\n${heading}`).toMatch(/^(checkpoint says|the todo table|the marker)/);
    }
  });

  it('Backups: a 48828.1 KB size is followed by a space before its summary', async () => {
    const m = await mount({ rows: 24, columns: 80 });
    await m.openBackups();
    const big = m.lines().find((l) => l.includes('48828.1 KB'));
    expect(big, m.frame()).toBeDefined();
    expect(after(big!, '48828.1 KB')).toMatch(/^ +too large to diff/);
    const small = m.lines().find((l) => l.includes('bak.20261129-110000'))!;
    // The summaries start in one column.
    expect(stringWidth(small.slice(0, small.indexOf('−1 +0 lines')))).toBe(stringWidth(big!.slice(0, big!.indexOf('too large'))));
  });
});

describe('every frame fits the terminal', () => {
  const modes = [
    { name: 'NO_COLOR', theme: NO_COLOR_THEME, ascii: false },
    { name: 'ascii', theme: COLOR_THEME, ascii: true },
  ];
  for (const [columns, rows] of [
    [60, 15],
    [80, 24],
  ] as const) {
    for (const mode of modes) {
      it(`at ${columns}×${rows} in ${mode.name} mode: every view, the backups panel, after scrolling`, async () => {
        const m = await mount({ rows, columns, theme: mode.theme, ascii: mode.ascii });
        const fits = (what: string) => {
          const raw = m.raw();
          if (mode.theme === NO_COLOR_THEME) expect(raw, what).not.toContain('\u001b');
          const l = stripVTControlCharacters(raw).split('\n');
          expect(l.length, `${what}:\n${l.join('\n')}`).toBeLessThan(rows);
          for (const x of l) expect(stringWidth(x), `${what}: ${x}`).toBeLessThanOrEqual(columns);
        };
        for (const v of ['1', '2', '3', '4', '5']) {
          await m.press(v);
          fits(`view ${v}`);
          await m.press('G');
          fits(`view ${v} after G`);
          await m.press('g');
        }
        await m.openBackups();
        fits('backups');
        await m.press('j');
        fits('backups after j');
      });
    }
  }
});

describe('checkroom plan (CLI text)', () => {
  const step = (action: PlanAction, unit: string | null = 'ch04', s: string | null = 'memory'): NextStep => ({ priority: 1, unit, step: s, action, reason: 'the reason', blocks: 0 });
  const o = { paint: makePaint(false), ascii: false, width: 80 };

  it('puts every reason in one column, whatever the action (in operator words; "rebuild memory" is among the longest)', () => {
    const actions: PlanAction[] = ['retry', 'human_review', 'backup_redo', 'decide', 'run', 'complete_phase', 'rebuild_memory'];
    const at = actions.map((a) => nextLine(step(a), o, 78).indexOf('the reason'));
    expect(new Set(at).size).toBe(1);
    expect(nextLine(step('rebuild_memory'), o, 78)).toMatch(/^P1 ch04 memory +rebuild memory +the reason$/);
  });

  it('sizes the place column from the entries when asked, cutting nothing that fits', () => {
    const next = [step('retry', '1764400000-k3f9a2', 's04.5'), step('run', null, null)];
    const w = whereWidth(next);
    expect(w).toBe('1764400000-k3f9a2 s04.5'.length);
    const lines = next.map((n) => nextLine(n, o, 78, w));
    expect(lines[0]).toContain('1764400000-k3f9a2 s04.5 retry');
    expect(new Set(lines.map((l) => l.indexOf('the reason'))).size).toBe(1);
    for (const l of lines) expect(stringWidth(l)).toBeLessThanOrEqual(78);
  });

  it('the plan command of the demo: the reasons line up, "rebuild memory" included', async () => {
    let text = '';
    await planCommand([copyDemo()], false, o, { write: (s: string) => void (text += s) } as never);
    const rows = text.split('\n').filter((l) => /^\s+\d+\. P\d /.test(l));
    expect(rows.some((l) => / rebuild memory +\S/.test(l)), text).toBe(true);
    const action = new RegExp(`^(\\s+\\d+\\. P\\d \\S+ \\S+ +(?:${Object.values(ACTION_WORDS).join('|')}) +)`);
    const at = rows.map((l) => action.exec(l)![1]!.length);
    expect(new Set(at).size, text).toBe(1);
    for (const l of rows) expect(stringWidth(l)).toBeLessThanOrEqual(80);
  });
});
