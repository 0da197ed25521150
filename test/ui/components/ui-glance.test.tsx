import { afterEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import chalk from 'chalk';
import stringWidth from 'string-width';
import { createLiveWorkspace } from '../../../src/live/live-workspace.js';
import { createAppStore } from '../../../src/ui/store/store.js';
import { NO_COLOR_THEME } from '../../../src/text/theme.js';
import { loadConfig } from '../../../src/pipeline/config/config.js';
import { openSupervisor, type Supervisor } from '../../../src/run/supervisor/supervisor.js';
import { ACTION_WORDS, actionWord } from '../../../src/plan/action-words.js';
import { renderRoom, tick, unmountAll } from '../../helpers/ink.js';
import { FAST_BACKOFF, REPO, copyDemo, tempDir, writeFakeAgentWs } from '../../helpers/workspace.js';

// Issue 18 item 5, readable at a glance, on the demo's copy and on a workspace with a failing
// agent, with the real supervisor (idle or after one real launch): plan actions in operator
// words and reasons cut at a word, a full-row selection in reverse video that survives
// NO_COLOR in every list, `/` filtering Health, blocked cells drawn apart in the matrix with
// what blocks them in the detail, names and paths never split mid-word, and Health keeping the
// breaker's countdown on a narrow terminal.

const SIZES = [
  [80, 24],
  [120, 40],
  [60, 20],
] as const;

const sups: Supervisor[] = [];
afterEach(async () => {
  chalk.level = 0;
  await unmountAll();
  for (const s of sups.splice(0)) await s.close({ cancel: true });
});

async function mount(root: string, o: { rows: number; columns: number; ascii?: boolean }) {
  const config = await loadConfig(root);
  const sup = await openSupervisor({ root, config });
  sups.push(sup);
  const live = await createLiveWorkspace(root, { watch: false });
  const store = createAppStore({ live, ascii: o.ascii, agents: { sup, config }, now: () => new Date(2026, 10, 30, 5, 12, 0) });
  const room = await renderRoom(store, live, NO_COLOR_THEME, o.rows, o.columns);
  const waitFor = async (what: string | RegExp, timeout = 10_000) => {
    const t0 = Date.now();
    while (!(typeof what === 'string' ? room.frame().includes(what) : what.test(room.frame()))) {
      if (Date.now() - t0 > timeout) throw new Error(`timed out waiting for ${String(what)}; frame:\n${room.frame()}`);
      await tick(20);
    }
  };
  await waitFor(/\[1 Progress\]/);
  const lines = () => room.frame().split('\n');
  const type = async (text: string) => room.press(...text);
  return { ...room, store, sup, waitFor, lines, type };
}

/** A workspace whose researcher failed once for good (PERMISSION): its breaker is open with a
 *  60 s countdown, ch01 research is escalated. `unit` names the first chapter. */
async function failedWs(unit = 'ch01'): Promise<string> {
  const root = writeFakeAgentWs(tempDir('checkroom-glance-'), {
    units: [unit, 'ch02'],
    unitsLine: `units: { pattern: 'ch\\d{2}[a-z-]*', list: [${unit}, ch02] }`,
    faults: { [`${unit}/research`]: 'permission' },
    speed: 40,
    tail: [...FAST_BACKOFF, 'breaker:', '  threshold: 1', '  cooldown: 60s'],
  });
  const config = await loadConfig(root);
  const first = await openSupervisor({ root, config });
  expect((await first.launch(unit, 'research')).outcome).not.toBe('done');
  await first.close();
  return root;
}

describe('Plan actions and reasons in operator words', () => {
  for (const [columns, rows] of SIZES) {
    it(`at ${columns}×${rows}: every action in words, every reason cut at a word, the whole reason under the list`, async () => {
      const m = await mount(copyDemo(), { rows, columns });
      await m.press('3');
      await m.waitFor('[3 Plan');
      const next = m.store.getState().ws.next;
      expect(next.length).toBeGreaterThan(5);
      const f = m.frame();
      let cut = 0;
      for (const n of next) {
        const row = m.lines().find((l) => /^[ ›] P\d /.test(l) && l.includes(` ${n.unit} ${n.step} `));
        expect(row, `${n.unit} ${n.step}\n${f}`).toBeDefined();
        // The reason starts after the action column, whatever the action is called there.
        const action = [actionWord(n.action), n.action].find((a) => row!.includes(` ${a} `))!;
        const reason = row!
          .slice(row!.indexOf(` ${action} `) + action.length + 2)
          .trimStart()
          .trimEnd();
        if (!reason.endsWith('…')) {
          expect(n.reason.startsWith(reason), `${reason}\n${n.reason}`).toBe(true);
          continue;
        }
        cut++;
        const shown = reason.slice(0, -1);
        expect(n.reason.startsWith(shown), `${reason}\n${n.reason}`).toBe(true);
        // The cut falls between words: what follows is a space or a separator, the shown part
        // ends a directory (a path wider than the column), or it falls between CJK characters.
        const rest = n.reason.slice(shown.length);
        const betweenWide = stringWidth([...shown].at(-1)!) === 2 && stringWidth([...rest][0] ?? '') === 2;
        expect(/^[\s,;:·—–-]/.test(rest) || shown.endsWith('/') || betweenWide, `cut mid-word: ${reason}\n${n.reason}`).toBe(true);
      }
      if (columns <= 80) expect(cut).toBeGreaterThan(0);
      // Actions in words: never the machine names.
      for (const raw of ['human_review', 'backup_redo', 'rebuild_memory']) expect(f).not.toContain(raw);
      for (const n of next)
        expect(
          m.lines().some((l) => l.includes(` ${n.unit} ${n.step} `) && l.includes(` ${actionWord(n.action)} `)),
          f,
        ).toBe(true);
      // The selected entry's whole reason is under the list, wrapped at words.
      const sel = next[0];
      const detail = m.lines().slice(m.lines().findIndex((l) => l.startsWith(sel.reason.split(' ')[0]) && !/^[ ›] P/.test(l)));
      expect(detail.join(' ').replace(/\s+/g, ' '), f).toContain(sel.reason);
    });
  }

  it('at 60×20 a reason longer than the rows under the list ends with "…", its paths whole', async () => {
    const m = await mount(copyDemo(), { rows: 20, columns: 60 });
    const path = 'reader-feedback/a-long-folder-of-panel-notes/ch05-panel-feedback-final.md';
    m.store.setState({ redoQueue: [{ unit: 'ch05', step: 'panel', path, backup: `${path}.bak.20261130-051200`, queuedAt: 0 }] });
    await m.press('3', 'g');
    await m.waitFor(/› Q ch05 panel/);
    const l = m.lines();
    const footer = l.findIndex((x) => x.startsWith('1-5/tab'));
    const detail = l
      .slice(
        l.findIndex((x) => x.startsWith('queued redo:')),
        footer,
      )
      .filter((x) => x.trim() !== '');
    expect(detail.length, m.frame()).toBe(3);
    expect(detail.at(-1)!.endsWith('…'), m.frame()).toBe(true);
    for (const x of detail) expect(stringWidth(x)).toBeLessThanOrEqual(60);
    // Each row is made of whole words of the text, or of a path cut after a `/`.
    const words = new Set(`queued redo: ${path} was backed up to ${path}.bak.20261130-051200; enter relaunches it`.split(' '));
    for (const w of detail.flatMap((x) => x.trim().split(' ')).filter((w) => w !== '…')) {
      const bare = w.replace(/…$/, '');
      expect(
        words.has(bare) ||
          [...words].some((x) => x.startsWith(bare) && bare.endsWith('/')) ||
          [...words].some((x) => x.split('/').some((part, i, all) => all.slice(i).join('/') === bare)),
        `${w}\n${m.frame()}`,
      ).toBe(true);
    }
  });

  it('`/` finds a plan entry by its words', async () => {
    const m = await mount(copyDemo(), { rows: 24, columns: 80 });
    await m.press('3', '/');
    await m.type('needs you');
    await m.press('\r');
    const rows = m.lines().filter((l) => /^[ ›] P\d /.test(l));
    expect(rows.length, m.frame()).toBe(1);
    expect(rows[0]).toMatch(/P1 ch06 draft +needs you /);
  });
});

describe('checkroom plan and status say the words; --json keeps the machine names', () => {
  it('plan, status and plan --json on the demo (the built binary)', async () => {
    const { execFileSync } = await import('node:child_process');
    const root = copyDemo();
    const run = (...args: string[]) =>
      execFileSync('node', [join(REPO, 'dist', 'src', 'cli.js'), ...args], {
        encoding: 'utf8',
        env: { ...process.env, COLUMNS: '80', NO_COLOR: '1' },
      });
    const plan = run('plan', root);
    const status = run('status', root);
    for (const text of [plan, status]) {
      for (const raw of ['human_review', 'backup_redo', 'rebuild_memory']) expect(text).not.toContain(raw);
      expect(text).toMatch(/P1 ch06 draft +needs you +ch06 draft needs a human/);
    }
    expect(plan).toMatch(/P2 ch05 draft +back up & redo +drafts\/ch05-draft\.md/);
    const json = JSON.parse(run('plan', '--json', root)) as { action: string }[];
    expect(json.map((n) => n.action)).toEqual(expect.arrayContaining(['human_review', 'backup_redo', 'rebuild_memory', 'decide', 'retry']));
    for (const n of json) expect(Object.keys(ACTION_WORDS)).toContain(n.action);
  });
});

/** The raw lines drawn in reverse video (SGR 7), as the terminal shows them, and their text. */
function inverseRows(raw: string): string[] {
  return raw
    .split('\n')
    .filter((l) => l.includes('\u001b[7m'))
    .map((l) => stripVTControlCharacters(l));
}

describe('a full-row selection that survives NO_COLOR, in every list', () => {
  for (const [columns, rows] of SIZES) {
    it(`at ${columns}×${rows}: Progress, Partials, Plan, Sources and Health draw their cursor row in reverse video across the row`, async () => {
      // As a colour terminal would get it: NO_COLOR drops the colours, not the reverse video.
      chalk.level = 3;
      const m = await mount(copyDemo(), { rows, columns });
      const check = async (key: string, heading: string, name: RegExp, what: string) => {
        await m.press(key);
        await m.waitFor(heading);
        const inv = inverseRows(m.raw());
        expect(inv.length, `${what}: no reverse-video row\n${m.frame()}`).toBe(1);
        expect(inv[0], what).toMatch(name);
        // Across the whole row: the bar is as wide as the terminal, not one column.
        expect(stringWidth(inv[0]), `${what}: ${JSON.stringify(inv[0])}`).toBe(columns);
        // No colour codes under NO_COLOR: reverse video and its end are the only SGR codes.
        expect(
          m
            .raw()
            .match(/\u001b\[[\d;]*m/g)!
            .every((c) => c === '\u001b[7m' || c === '\u001b[27m'),
          what,
        ).toBe(true);
      };
      await check('1', '[1 Progress', /^›ch01 /, 'Progress');
      await m.press('j');
      expect(inverseRows(m.raw())[0]).toMatch(/^›ch02 /);
      await check('2', '[2 Partials', /^› maybe_complete .*ch02-panel\.md/, 'Partials');
      await check('3', '[3 Plan', /^› P1 ch06 draft +needs you/, 'Plan');
      await check('4', '[4 Sources', /^› ch02 panel /, 'Sources');
      // At 60 columns the tab bar is cut before Health's tab: its first line says it is Health.
      await check('5', 'launches 0 of', /^› agent archivist /, 'Health');
      await m.press('j');
      expect(inverseRows(m.raw())[0]).toMatch(/^› agent editor /);
    });
  }
});

describe('`/` filters Health', () => {
  it('keeps the rows that match (the escalated cell, the researcher), and esc brings back every row', async () => {
    const m = await mount(await failedWs(), { rows: 24, columns: 80 });
    await m.press('5');
    await m.waitFor(/agent researcher +open \d+ s left/);
    const all = m.lines().filter((l) => /^[ ›] (agent \S+|ch\d\d \S+) /.test(l));
    expect(all.length).toBeGreaterThan(5);
    await m.press('/');
    await m.type('escalated');
    await m.press('\r');
    let rows = m.lines().filter((l) => /^[ ›] (agent \S+|ch\d\d \S+) /.test(l));
    expect(rows, m.frame()).toHaveLength(1);
    expect(rows[0]).toMatch(/^› ch01 research +escalated +1 att · PERMISSION 1/);
    // The keys act on what is shown: the selected item is the filtered list's.
    expect(m.store.getState().cursors.health).toBe(0);
    await m.press('\u001b', '/');
    await m.type('researcher');
    await m.press('\r');
    rows = m.lines().filter((l) => /^[ ›] (agent \S+|ch\d\d \S+) /.test(l));
    // By urgency (issue 18 item 1): the escalated cell, then the open breaker.
    expect(rows.map((l) => /^[ ›] (agent \S+|ch\d\d \S+) /.exec(l)![1])).toEqual(['ch01 research', 'agent researcher']);
    await m.press('/');
    await m.type('nothing-like-this');
    await m.press('\r');
    expect(m.frame()).toContain('nothing matches the filter (esc clears it)');
    await m.press('\u001b');
    await m.waitFor('agent archivist');
    expect(m.lines().filter((l) => /^[ ›] (agent \S+|ch\d\d \S+) /.test(l))).toHaveLength(all.length);
  }, 60_000);
});

describe('blocked cells are drawn apart in the matrix, and the detail says what blocks them', () => {
  for (const ascii of [false, true]) {
    it(`${ascii ? 'ASCII' : 'emoji'}: ch06's steps after its escalated draft, and ch03's after its failed r2`, async () => {
      const m = await mount(copyDemo(), { rows: 24, columns: 80, ascii });
      const glyph = ascii ? '#' : '🔒';
      const notStarted = ascii ? '.' : '--';
      const row = (unit: string) => m.lines().find((l) => l.slice(1).startsWith(`${unit} `))!;
      const cellsOf = (l: string) =>
        l
          .slice(l.indexOf(' B') + 3)
          .trim()
          .split(/\s+/)
          .map((c) => c.replace(/^\[|\]$/g, ''));
      // ch06: research done, draft needs a human, the other eight blocked.
      expect(cellsOf(row('ch06')), m.frame()).toEqual([ascii ? '+' : '✅', ascii ? '!' : '✋', ...Array(8).fill(glyph)]);
      // ch03: r2 failed; r3 is done, review onwards blocked.
      expect(cellsOf(row('ch03')).slice(5)).toEqual(Array(5).fill(glyph));
      // A not-started cell that waits on nothing failed keeps its glyph.
      expect(cellsOf(row('ch08'))).toEqual(Array(10).fill(notStarted));
      expect(m.lines().find((l) => l.includes('not started'))).toContain(`${glyph} blocked`);
      // The detail of ch06 r1 names the cell that blocks it, with its state.
      await m.press(...Array(5).fill('j'), 'l', 'l', '\r');
      await m.waitFor('(esc back');
      const f = m.frame();
      expect(f).toContain(`ch06 · `);
      expect(f).toContain(`${glyph} blocked`);
      expect(f).toMatch(/blocked by +ch06 draft \(needs human\): it can start once that is done/);
    });
  }
});

describe('names and paths are never split mid-word', () => {
  it('at exactly 80 columns the backup dialog keeps both file names whole', async () => {
    const m = await mount(copyDemo(), { rows: 24, columns: 80 });
    await m.press('2', 'b');
    await m.waitFor('Confirm: Back up reader-feedback/ch02-panel.md');
    const rows = m.lines();
    const words = rows.flatMap((l) => l.trim().split(/\s+/));
    expect(words, m.frame()).toContain('reader-feedback/ch02-panel.md');
    expect(
      words.some((w) => /^reader-feedback\/ch02-panel\.md\.bak\.\d{8}-\d{6}$/.test(w)),
      m.frame(),
    ).toBe(true);
    for (const l of rows) expect(stringWidth(l)).toBeLessThanOrEqual(80);
    await m.press('n');
  });

  it('the Partials list elides a long path from its start, its file name whole', async () => {
    const root = copyDemo();
    const deep = 'reader-feedback/a-much-longer-folder-name-for-the-panels/ch02-panel.md';
    const m = await mount(root, { rows: 24, columns: 60 });
    await m.press('2');
    await m.waitFor('[2 Partials');
    // The demo's own paths fit; a long one gives way from its start.
    expect(m.frame()).toContain('reader-feedback/ch02-panel.md');
    const { fitPath } = await import('../../../src/text/layout.js');
    expect(fitPath(deep, 25)).toBe('…/ch02-panel.md');
  });
});

describe('Health keeps the breaker countdown on a narrow terminal', () => {
  for (const [columns, rows] of [
    [60, 20],
    [50, 20],
    [40, 20],
  ] as const) {
    it(`at ${columns}×${rows}, with a unit name that fills the name column, the state column shows "open N s left" whole, and the detail cuts at words`, async () => {
      const m = await mount(await failedWs('ch01-with-a-rather-long-unit-name'), { rows, columns });
      await m.press('5');
      await m.waitFor(/agent researcher/);
      const row = m.lines().find((l) => /^[ ›] agent researcher/.test(l));
      expect(row, m.frame()).toMatch(/ open (\d+ m )?\d+ s left( |$)/);
      for (const l of m.lines()) expect(stringWidth(l)).toBeLessThanOrEqual(columns);
      // The escalated cell's detail: its last error is cut at a word (or after a `/`), never mid-word.
      // Health is by urgency (issue 18 item 1): the escalated cell is the first row.
      await m.press('g');
      const cell = Object.values(m.store.getState().agents.snap!.ledger.cells).find((c) => c.unit.startsWith('ch01'))!;
      const full = `  last error: ${cell.lastError}`;
      const shown = m.lines().find((l) => l.startsWith('  last error: '));
      expect(shown, m.frame()).toBeDefined();
      if (shown!.endsWith('…')) {
        const head = shown!.slice(0, -1);
        expect(full.startsWith(head), `${shown}\n${full}`).toBe(true);
        expect(/^[\s,;:'"·—–-]/.test(full.slice(head.length)) || head.endsWith('/'), `cut mid-word: ${shown}\n${full}`).toBe(true);
      }
    }, 60_000);
  }
});
