import { afterAll, describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { NewJournalEvent } from '../../src/run/journal/journal.js';
import { PHASE_1_2, summaries, tempDir, writeFiles } from '../helpers/workspace.js';
import { hasTmux, tmuxRooms } from '../helpers/tmux.js';
import { breakerOf, type Breaker } from '../helpers/gen-facts.js';

// Issue 18 item 2, the countdown in a real terminal: the built control room (tmux 120×30) on
// a book whose researcher breaker has just opened, with the researcher's two ready cells
// (ch01 and ch02 research) in the Plan. The test flips between Plan and Health and captures
// each as it goes: in every capture both Plan rows show the same seconds left; Plan and
// Health, interleaved in capture order, never go back up (a frozen countdown — "29 s left" in
// the Plan while Health said 1 s — breaks that); both tick down through the last seconds and
// reach half-open together. Nothing is asserted on the wall clock: only the order of captures.

/** Long enough for the room to start on a loaded machine before the breaker half-opens. */
const COOLDOWN_S = 40;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function bookWithOpenBreaker(): string {
  const root = tempDir('checkroom-countdown-');
  writeFiles(root, { ...PHASE_1_2, 'meta/chapter-summaries.md': summaries([]) });
  writeFileSync(
    join(root, 'checkroom.yaml'),
    [
      'preset: book',
      'units: { list: [ch01, ch02] }',
      'agents:',
      "  researcher: { command: ['false'] }",
      `breaker: { threshold: 2, cooldown: ${COOLDOWN_S}s, max_cooldown: ${COOLDOWN_S}s }`,
      '',
    ].join('\n'),
  );
  // Two failures in a row, just now: the breaker opened at the second (src/run/policy/breaker.ts).
  const at = Date.now();
  const failed = (unit: string, n: number): NewJournalEvent[] => [
    { type: 'launch', at: at - 2000 + n, runId: `r${n}`, unit, step: 'research', agent: 'researcher', attempt: 1, argv: ['false'], cwd: root, logPath: join(root, '.checkroom', 'runs', `r${n}.log`), pid: null, procStart: null, outputPath: null },
    { type: 'exit', at: at - 1000 + n, runId: `r${n}`, unit, step: 'research', agent: 'researcher', exitCode: 1, signal: null, class: 'UNKNOWN', markerFound: false, cmdFp: 'c', errFp: 'e', keywords: [], errorTail: ['boom'], error: 'boom', durationMs: 5 },
  ];
  const journal: NewJournalEvent[] = [{ type: 'session', at: at - 3000, kind: 'start', pid: 1 }, ...failed('ch01', 1), ...failed('ch02', 2)];
  mkdirSync(join(root, '.checkroom'), { recursive: true });
  writeFileSync(join(root, '.checkroom', 'journal.jsonl'), journal.map((e) => JSON.stringify({ ...e, v: 1 })).join('\n') + '\n');
  return root;
}

/** The two researcher rows of the Plan: what each says about the breaker (null: not blocked by it). */
const planRows = (screen: string): Record<string, Breaker | null> | null => {
  const rows: Record<string, Breaker | null> = {};
  for (const l of screen.split('\n')) {
    const m = /(ch0[12]) research\s+\S+\s+(.*)$/.exec(l);
    if (m && /^\s*[›>]?\s*P\d/.test(l)) rows[m[1]] = /breaker researcher/.test(m[2]) ? breakerOf(m[2]) : null;
  }
  return 'ch01' in rows && 'ch02' in rows ? rows : null;
};

const healthRow = (screen: string): Breaker | null => {
  const m = /agent researcher\s+(.+?)\s+trips \d/.exec(screen);
  return m ? breakerOf(m[1]) : null;
};

describe.skipIf(!hasTmux())('torture: a breaker countdown ticks together in two Plan rows and in Health, down to half-open (tmux 120×30)', () => {
  const { room } = tmuxRooms(afterAll);

  it('both Plan rows show the same seconds in every capture; Plan and Health never go back up and reach half-open', async () => {
    const root = bookWithOpenBreaker();
    const t = room(root, { cols: 120, rows: 30 });
    await t.waitFor(/Plan \(\d+\)/, 60_000);
    const seen: { view: 'Plan' | 'Health'; left: number | null; state: string; screen: string }[] = [];
    const say = () => seen.map((s) => `${s.view} ${s.state}${s.left === null ? '' : ` ${s.left}`}`).join(' → ');
    for (let i = 0; i < 2000; i++) {
      t.keys('3');
      const plan = await t.waitFor(/\[3 Plan/, 10_000);
      const rows = planRows(plan);
      expect(rows, `the Plan shows both researcher rows:\n${plan}`).not.toBeNull();
      const [a, b] = [rows!.ch01, rows!.ch02];
      expect(a, `one capture, two rows, one breaker (${say()}):\n${plan}`).toEqual(b);
      seen.push({ view: 'Plan', left: a?.left ?? null, state: a?.state ?? 'not blocked', screen: plan });
      t.keys('5');
      const health = await t.waitFor(/\[5 Health/, 10_000);
      const h = healthRow(health);
      expect(h, `Health shows the researcher's breaker:\n${health}`).not.toBeNull();
      seen.push({ view: 'Health', left: h!.left, state: h!.state, screen: health });
      if (h!.state !== 'open' && a === null) break;
      await sleep(100);
    }
    // Down to zero together: the open countdown never goes back up across both views…
    const open = seen.filter((s) => s.state === 'open');
    for (let k = 1; k < open.length; k++) expect(open[k].left!, `the countdown went back up: ${say()}`).toBeLessThanOrEqual(open[k - 1].left!);
    // …once open is over in one view it stays over in both (no view still counting after the other half-opened)…
    const firstOver = seen.findIndex((s) => s.state !== 'open');
    expect(firstOver, `it never reached half-open: ${say()}`).toBeGreaterThan(0);
    expect(seen.slice(firstOver).filter((s) => s.state === 'open'), `a view still counted after the other reached zero: ${say()}`).toEqual([]);
    // …each view ticked through its last seconds (not a frozen value that jumps), and Health says half-open.
    for (const view of ['Plan', 'Health'] as const) {
      const lefts = open.filter((s) => s.view === view).map((s) => s.left!);
      expect(new Set(lefts).size, `${view} ticked: ${say()}`).toBeGreaterThanOrEqual(4);
      expect(Math.min(...lefts), `${view} counted down to its last seconds: ${say()}`).toBeLessThanOrEqual(3);
    }
    expect(seen[seen.length - 1].state, say()).toBe('half-open');
  }, 240_000);
});
