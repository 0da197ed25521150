import { afterEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createLiveWorkspace } from '../../../src/live/live-workspace.js';
import { statusText } from '../../helpers/status-text.js';
import { startControlServer } from '../../../src/socket/server.js';
import { askStatus } from '../../../src/socket/client.js';
import { statusJsonText } from '../../../src/cli/commands/core-commands.js';
import { loadWorkspace } from '../../../src/workspace.js';
import { cellChanges, cellChangesSince, statusesOf } from '../../../src/socket/events.js';
import type { CostLedger, Spend } from '../../../src/run/journal/costs.js';
import { BOOK_MARKERS, copyDemo, tempDir } from '../../helpers/workspace.js';
import { buildOperatorModel } from '../../../src/operator/model.js';
import type { WorkspaceState } from '../../../src/types.js';

/** The room's forecast of a state, as the entry wires it (test/helpers/status-text.ts, docs/foresight.md). */
const foresightOf = (s: WorkspaceState) => buildOperatorModel(s, null, Date.now()).foresight;

// Issue 10 "done when": no verdict differs between the socket's answer and a cold scan. A
// control room serves a real workspace; random edits land on its files (markers appended,
// bodies cut, files deleted or renamed into place, same-size rewrites, checkpoint.md cells
// changed), and right after each batch — no wait — the whole status document it answers
// equals the one a fresh full read of the disk gives (the scan's clock aside).

// The forecast's clock (the minute, docs/foresight.md) is a time like scannedAt: a room's answer and a scan's may straddle a minute.
const sansTime = (text: string): string => text.replace(/"scannedAt": ?"[^"]*",/, '"scannedAt":"-",').replace(/"eta": ?\{(\s*)"at": ?"[^"]*"/, '"eta":{$1"at":"-"');

type Edit = { t: 'mark' | 'cut' | 'rm' | 'same-size' | 'atomic-done' | 'claim'; i: number; glyph: number };

const edit = fc.record({
  t: fc.constantFrom<Edit['t']>('mark', 'cut', 'rm', 'same-size', 'atomic-done', 'claim'),
  i: fc.nat(),
  glyph: fc.nat({ max: 4 }),
});

const GLYPHS = ['✅', '⏳', '❌', '⚠️', '—'];
const markerOf = (path: string): string => Object.values(BOOK_MARKERS).find(([p]) => new RegExp(`^${p.replace('{u}', '[^/]+')}$`).test(path))?.[1] ?? 'RESEARCH_COMPLETE';

function apply(dir: string, paths: readonly string[], e: Edit): void {
  const rel = paths[e.i % paths.length];
  const abs = join(dir, rel);
  const text = existsSync(abs) ? readFileSync(abs, 'utf8') : '';
  mkdirSync(dirname(abs), { recursive: true });
  if (e.t === 'mark') writeFileSync(abs, `${text}\n\n<!-- ${markerOf(rel)} -->\n`);
  else if (e.t === 'cut') writeFileSync(abs, text.slice(0, Math.floor(text.length / 3)));
  else if (e.t === 'rm') rmSync(abs, { force: true });
  // The same bytes count, one letter changed: a rewrite within one timestamp tick.
  else if (e.t === 'same-size') writeFileSync(abs, text.length ? `${text[0] === 'x' ? 'y' : 'x'}${text.slice(1)}` : 'x');
  else if (e.t === 'atomic-done') {
    writeFileSync(`${abs}.tmp`, `# ${rel}\n\n${'words '.repeat(200)}\n\n<!-- ${markerOf(rel)} -->\n`);
    renameSync(`${abs}.tmp`, abs);
  } else {
    const cp = join(dir, 'checkpoint.md');
    const cells = readFileSync(cp, 'utf8').split('\n');
    const rows = cells.map((l, n) => [l, n] as const).filter(([l]) => /^\| ch\d+ /.test(l));
    if (!rows.length) return;
    const [line, n] = rows[e.i % rows.length];
    const parts = line.split('|');
    const col = 2 + (e.i % Math.max(1, parts.length - 3));
    parts[col] = ` ${GLYPHS[e.glyph]} `;
    cells[n] = parts.join('|');
    writeFileSync(cp, cells.join('\n'));
  }
}

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

describe('control socket: the same verdicts as a cold scan', () => {
  it('after any batch of random edits, the whole status --json document equals a fresh read of the disk', async () => {
    const dir = copyDemo();
    const env = { ...process.env, XDG_RUNTIME_DIR: tempDir('checkroom-xdg-') };
    const live = await createLiveWorkspace(dir, { watch: true });
    const server = await startControlServer(dir, { live, pointer: false, env }, statusText());
    if (!server) throw new Error('another instance serves');
    cleanup.push(
      () => live.close(),
      () => server.close(),
    );
    const paths = [...new Set(live.state.cells.filter((c) => c.path).map((c) => c.path))].sort();
    expect(paths.length).toBeGreaterThan(20);
    await fc.assert(
      fc.asyncProperty(fc.array(edit, { minLength: 1, maxLength: 6 }), async (edits) => {
        const before = live.state;
        for (const e of edits) apply(dir, paths, e);
        const asked = await askStatus(dir, { env });
        // What `watch` streams, by identity, is what comparing every cell by key gives.
        const since = cellChangesSince(before, live.state, 'at');
        if (since) expect(since).toEqual(cellChanges(statusesOf(before), live.state, 'at'));
        expect(asked).not.toBeNull();
        const coldState = await loadWorkspace(dir);
        const cold = statusJsonText(coldState, undefined, foresightOf(coldState));
        expect(sansTime(Buffer.concat(asked!).toString('utf8'))).toBe(sansTime(cold));
      }),
      { numRuns: 25, seed: 20261201 },
    );
  }, 120_000);
});

describe('the status text kept by block', () => {
  it('follows new states and a cell whose spend changed, byte for byte with statusJsonText', async () => {
    const dir = copyDemo();
    const live = await createLiveWorkspace(dir, { watch: false });
    cleanup.push(() => live.close());
    const spend = (costUsd: number): Spend => ({ costUsd, tokensIn: 10, tokensOut: 20, attempts: 1 });
    let ledger: CostLedger = { workspace: spend(1), session: spend(1), cells: { 'ch01/research': spend(1) }, agents: { researcher: spend(1) }, lastSession: {} };
    const text = statusText(() => ledger);
    const same = () => expect(Buffer.concat(text(live.state)).toString('utf8')).toBe(statusJsonText(live.state, ledger, foresightOf(live.state)));
    same();
    ledger = { ...ledger, cells: { ...ledger.cells, 'ch01/research': spend(2.5), 'ch02/draft': spend(0.25) } };
    same();
    apply(dir, [...new Set(live.state.cells.map((c) => c.path))].sort(), { t: 'mark', i: 3, glyph: 0 });
    live.touch([...new Set(live.state.cells.map((c) => c.path))]);
    await live.settled();
    same();
    live.setRunning(new Set(['ch03/draft']));
    same();
    expect(JSON.parse(Buffer.concat(text(live.state)).toString('utf8')).cells.find((c: { unit: string; step: string }) => c.unit === 'ch02' && c.step === 'draft').cost_usd).toBe(0.25);
  });
});
