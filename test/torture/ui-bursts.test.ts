import { afterEach, describe, expect, it } from 'vitest';
import { appendFileSync, existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { createLiveWorkspace } from '../../src/live/live-workspace.js';
import { createAppStore } from '../../src/ui/store/store.js';
import { COLOR_THEME } from '../../src/text/theme.js';
import { listKeys } from '../../src/ui/views/nav.js';
import type { AppState } from '../../src/ui/store/types.js';
import { renderRoom, tick, unmountAll } from '../helpers/ink.js';
import { copyDemo } from '../helpers/workspace.js';

// Torture (issue 8 items 2 and 9): key bursts in one stdin write (`jjjd`, `jjy`, `gjb`…),
// terminal resizes between the writes of a burst, while the Partials list reorders live
// (a new chapter's half-product appears above, a partial above is finished and leaves, and
// confirmed backups remove rows). Whatever the interleaving:
//  - the cursor is always on its picked item while that item is listed (checked on every
//    store change);
//  - every backup/keep/redo dialog names the file that was under the cursor when a b/m/d key
//    was read, and every file moved aside on disk was named by a confirmed dialog;
//  - nothing crashes, and every frame fits the terminal.
// A seeded generator picks the bursts, so a failure replays exactly.

const BURSTS = ['jjjd', 'jjy', 'jjb', 'gjb', 'Gkd', 'kkm', 'jd', 'y', 'n', 'jjjy', 'dy', 'bjjy', 'kjkjy', '\u001b', 'jjjs'];
const SIZES: [number, number][] = [
  [24, 80],
  [15, 60],
  [40, 120],
  [12, 50],
];

/** A small deterministic generator (mulberry32), so a seed names a run. */
const rng = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};

const backupsIn = (root: string): string[] =>
  readdirSync(root, { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.bak\.\d{8}-\d{6}/.test(f) && !f.startsWith('.checkroom'))
    .map((f) => relative(root, join(root, f)).split('\\').join('/'))
    .sort();

afterEach(async () => {
  await unmountAll();
});

describe('torture: key bursts and resizes while the Partials list reorders', () => {
  for (const seed of [1, 2, 3]) {
    it(`never acts on a row the cursor was not on, never crashes (seed ${seed})`, async () => {
      const root = copyDemo();
      const before = new Set(backupsIn(root));
      const live = await createLiveWorkspace(root, { watch: false });
      // The clock moves a second per call, so every backup gets its own name.
      let clock = new Date(2026, 10, 30, 5, 12, 0).getTime();
      const store = createAppStore({ live, now: () => new Date((clock += 1000)) });
      const { r, frame, size, dims } = await renderRoom(store, live, COLOR_THEME, 24, 80);
      const rand = rng(seed);
      const problems: string[] = [];

      // Invariant 1, on every store change: a listed pick is under the cursor.
      const off = store.subscribe((s: AppState) => {
        const key = s.picked.partials;
        const keys = listKeys(s, 'partials');
        if (key !== null && keys.includes(key) && keys[s.cursors.partials] !== key) problems.push(`cursor on ${keys[s.cursors.partials]} while ${key} is picked`);
      });
      // The row under the cursor — what the screen marks with › — when an action key was read
      // (wrapping the store's one entry for keys).
      const pickedAtAction: string[] = [];
      const feed = store.getState().feed;
      store.setState({
        feed: (t) => {
          const s = store.getState();
          if (s.view === 'partials' && !s.dialog && !s.prompt && ['b', 'm', 'd'].includes(t.ch)) {
            const under = listKeys(s, 'partials')[s.cursors.partials];
            if (under !== undefined) pickedAtAction.push(under);
          }
          feed(t);
        },
      });
      // Invariant 2: each dialog names a file picked at an action key since the last dialog.
      const confirmed: string[] = [];
      let open: string | null = null;
      // A confirm with recorded files closes the dialog while it looks, then reopens the same one to run it;
      // j/k scroll a long dialog (a new dialog object, the same pending action): one dialog, by its pending.
      const seen = new Set<unknown>();
      const offDialog = store.subscribe((s: AppState, prev: AppState) => {
        if (s.dialog && !seen.has(s.dialog.pending) && (s.dialog.pending.type === 'moves' || s.dialog.pending.type === 'keep')) {
          seen.add(s.dialog.pending);
          const target = s.dialog.pending.type === 'moves' ? s.dialog.pending.moves[0].path : s.dialog.pending.move.path;
          if (!pickedAtAction.includes(target)) problems.push(`dialog for ${target}, picked were ${pickedAtAction.join(', ')}`);
          pickedAtAction.length = 0;
        }
        // A confirmed backup or keep starts its disk action: the dialog it ran is the last one open.
        if (s.busy !== prev.busy && s.busy && /^(backing up|marking)/.test(s.busy) && open) confirmed.push(open);
        if (s.dialog) {
          const d = s.dialog.pending;
          open = d.type === 'moves' ? d.moves[0].path : d.type === 'keep' ? d.move.path : null;
        }
      });

      // The live reorders: a new chapter's half-product comes and goes above every row, the
      // ch02 panel (the first partial) is finished and unfinished again, each followed by the
      // rescan the watcher would do.
      let stop = false;
      const panel = join(root, 'reader-feedback/ch02-panel.md');
      const reorder = (async () => {
        for (let i = 0; !stop; i++) {
          const ch00 = join(root, 'research/ch00-research.md');
          if (i % 2 === 0) writeFileSync(ch00, '# ch00 research\n\nstarted');
          else rmSync(ch00, { force: true });
          if (i % 3 === 0 && existsSync(panel)) appendFileSync(panel, '\n<!-- READER_PANEL_COMPLETE -->\n');
          await live.refresh().catch(() => undefined);
          store.getState().setWorkspace(live.state, live.watching);
          await tick(5 + Math.floor(rand() * 30));
        }
      })();

      await tick();
      r.stdin.write('2');
      await tick();
      for (let n = 0; n < 60; n++) {
        const burst = BURSTS[Math.floor(rand() * BURSTS.length)];
        // A resize between the halves of a burst: two writes with a resize in between.
        const cut = Math.floor(rand() * (burst.length + 1));
        if (cut > 0) r.stdin.write(burst.slice(0, cut));
        if (rand() < 0.4) {
          const [rows, cols] = SIZES[Math.floor(rand() * SIZES.length)];
          size(rows, cols);
        }
        if (cut < burst.length) r.stdin.write(burst.slice(cut));
        await tick(Math.floor(rand() * 40));
        // Ink lays out at the size it was given: never more rows than the terminal has, once it
        // has drawn at that size (a resize's frame comes a render later; under load, later still).
        for (let waited = 0; frame().split('\n').length > dims().rows && waited < 3_000; waited += 20) await tick(20);
        expect(frame().split('\n').length).toBeLessThanOrEqual(dims().rows);
      }
      stop = true;
      await reorder;
      r.stdin.write('n');
      await tick(50);
      await store.getState().idle();
      off();
      offDialog();

      expect(problems).toEqual([]);
      // Invariant 2 on the disk: every file moved aside or copied was named by a confirmed dialog.
      const made = backupsIn(root).filter((b) => !before.has(b));
      for (const b of made) expect(confirmed).toContain(b.replace(/\.bak\.\d{8}-\d{6}(-\d+)?$/, ''));
      // And the control room still answers: the tab bar is drawn and a view switch works.
      r.stdin.write('1');
      await tick(50);
      expect(frame()).toContain('Progress');
    });
  }
});
