import { afterEach, describe, expect, it } from 'vitest';
import stringWidth from 'string-width';
import { createLiveWorkspace } from '../../../src/live/live-workspace.js';
import { createAppStore } from '../../../src/ui/store/store.js';
import { COLOR_THEME, type Theme } from '../../../src/text/theme.js';
import { countsOf as counts } from '../../../src/operator/model.js';
import { renderRoom, tick, unmountAll } from '../../helpers/ink.js';
import { actionWord } from '../../../src/plan/action-words.js';
import { copyDemo } from '../../helpers/workspace.js';

// The views of the control room on a copy of the demo workspace: header, view switching,
// the matrix cursor (including a `jjj` burst), the cell detail, plan, filter, `?`.
// Expected values come from the loaded state, so the demo's content can evolve.


async function mount(dir: string, o: { rows?: number; columns?: number; readonly?: boolean; ascii?: boolean; theme?: Theme } = {}) {
  const live = await createLiveWorkspace(dir, { watch: false });
  const store = createAppStore({ live, readonly: o.readonly, ascii: o.ascii, now: () => new Date(2026, 10, 30, 5, 12, 0) });
  const { r, frame, press } = await renderRoom(store, live, o.theme ?? COLOR_THEME, o.rows ?? 24, o.columns ?? 80);
  const waitFor = async (text: string | RegExp, timeout = 5000) => {
    const t0 = Date.now();
    while (!(typeof text === 'string' ? frame().includes(text) : text.test(frame()))) {
      if (Date.now() - t0 > timeout) throw new Error(`timed out waiting for ${text}; frame:\n${frame()}`);
      await tick(20);
    }
  };
  return { r, store, live, frame, press, waitFor, ws: () => store.getState().ws };
}

afterEach(async () => {
  await unmountAll();
});

const rowOf = (frame: string, unit: string) => frame.split('\n').find((l) => l.includes(` ${unit} `) || l.includes(`›${unit} `)) ?? '';

describe('control room views', () => {
  it('shows the header: workspace, phase and batch, progress, counts, live mode, times', async () => {
    const { frame, ws } = await mount(copyDemo());
    const s = ws();
    const c = counts(s);
    const phase = s.phases.find((p) => p.id === s.stoppedAt!.phase)!;
    const f = frame();
    expect(f).toContain(`checkroom · ${s.name}`);
    expect(f).toContain(`Phase ${phase.id} ${phase.name}`);
    // Where the work stopped (issue 18 item 3): the demo's checkpoint says Batch 2, its agents were
    // there; Batch 1's lost ch02 panel marker and ch04 memory entry are regressions, not the header's batch.
    expect(s.stoppedAt).toMatchObject({ batch: 2, from: 'checkpoint' });
    expect(f).toContain(`Batch ${s.stoppedAt!.batch}`);
    expect(f).not.toContain('checkpoint says');
    expect(f).toContain(`${c.done}/${c.total} done`);
    // The header counts the files the Partials tab lists (issue 18), not the cells whose status is partial.
    expect(f).toContain(`Partials (${c.halfProducts + c.suspects})`);
    expect(f).toContain(`${c.halfProducts + c.suspects} partials · ${c.failed} failed · ${c.needsHuman} needs human · ${c.running} running`);
    expect(f).toContain('live: off');
    expect(f).toContain(`checkpoint ${s.checkpoint.lastUpdate}`);
    expect(f).toContain(`scanned ${new Date(s.scannedAt).toTimeString().slice(0, 8)}`);
    expect(f).not.toContain('READ-ONLY');
  });

  it('switches views with 1–5, Tab and the command line', async () => {
    const { frame, press, waitFor } = await mount(copyDemo());
    expect(frame()).toContain('[1 Progress]');
    await press('2');
    expect(frame()).toMatch(/\[2 Partials \(\d+\)\]/);
    expect(frame()).toContain('Half-products');
    await press('3');
    expect(frame()).toMatch(/\[3 Plan \(\d+\)\]/);
    await press('4');
    expect(frame()).toMatch(/\[4 Sources \(\d+\)\]/);
    expect(frame()).toContain('checkpoint.md (zh) updated');
    await press('\t');
    expect(frame()).toContain('[5 Health]');
    await press('\t');
    expect(frame()).toContain('[6 History]');
    await press('\t');
    expect(frame()).toContain('[1 Progress]');
    await press('\t');
    expect(frame()).toMatch(/\[2 Partials/);
    await press(':', 'p', 'l', 'a', 'n');
    expect(frame()).toContain(':plan_');
    await press('\r');
    await waitFor(/\[3 Plan/);
    await press(':', 's', 'o', 'u', 'r', 'c', 'e', 's', '\r');
    expect(frame()).toMatch(/\[4 Sources/);
    await press(':', 'p', 'r', 'o', 'g', 'r', 'e', 's', 's', '\r');
    expect(frame()).toContain('[1 Progress]');
    await press(':', 'n', 'o', 'p', 'e', '\r');
    expect(frame()).toContain('unknown command ":nope"');
    expect(frame()).toContain('[1 Progress]');
  });

  it('moves the matrix cursor with j/k/h/l, arrows, g/G, and handles a `jjj` burst as three keys', async () => {
    const { frame, press, ws, r } = await mount(copyDemo());
    const units = ws().units;
    expect(rowOf(frame(), units[0])).toContain(`›${units[0]}`);
    await press('j');
    expect(rowOf(frame(), units[1])).toContain(`›${units[1]}`);
    r.stdin.write('jjj'); // one read carrying three keys, as tmux and SSH deliver them
    await tick(60);
    expect(rowOf(frame(), units[4])).toContain(`›${units[4]}`);
    expect(rowOf(frame(), units[1])).not.toContain('›');
    await press('k');
    expect(rowOf(frame(), units[3])).toContain(`›${units[3]}`);
    await press('\u001b[B'); // down arrow
    expect(rowOf(frame(), units[4])).toContain(`›${units[4]}`);
    await press('G');
    expect(rowOf(frame(), units[units.length - 1])).toContain(`›${units[units.length - 1]}`);
    await press('g');
    expect(rowOf(frame(), units[0])).toContain(`›${units[0]}`);
    // The cursor cell is bracketed; l moves it right, h back.
    const bracketAt = () => {
      const row = rowOf(frame(), units[0]);
      return stringWidth(row.slice(0, row.indexOf('[')));
    };
    const first = bracketAt();
    await press('l', 'l');
    expect(bracketAt()).toBe(first + 8);
    await press('h');
    expect(bracketAt()).toBe(first + 4);
    await press('\u001b[D');
    expect(bracketAt()).toBe(first);
  });

  it('opens the cell detail on Enter: path, size, marker, claims, verdict, blockedBy, tail; esc goes back', async () => {
    const { frame, press, waitFor, ws } = await mount(copyDemo());
    const s = ws();
    const cell = s.cells.find((c) => c.status === 'partial' && c.step === 'draft')!;
    const row = s.units.indexOf(cell.unit);
    const col = s.pipeline.steps.findIndex((st) => st.id === cell.step);
    await press(...Array(row).fill('j'), ...Array(col).fill('l'), '\r');
    await waitFor('── last');
    const f = frame();
    expect(f).toContain(`path       ${cell.path}`);
    expect(f).toContain(`${cell.bytes} bytes · ${cell.chars} characters`);
    expect(f).toContain('not found: <!-- DRAFT_COMPLETE -->');
    expect(f).toMatch(/checkpoint\.md: .*in progress\s+disk: file without its marker/);
    expect(f).toContain(`verdict    ${cell.triage!.verdict}`);
    expect(f).toContain('blocked by');
    // The tail: the file's real last non-blank line is on screen.
    const { readFileSync } = await import('node:fs');
    const last = readFileSync(`${s.root}/${cell.path}`, 'utf8').trimEnd().split('\n').at(-1)!.trim();
    expect(f).toContain(last.slice(0, 20));
    await press('\u001b');
    expect(frame()).toContain('[1 Progress]');
    expect(frame()).not.toContain('── last');
    expect(frame()).toContain('Phases');
  });

  it('lists the plan with priority, action, unit/step and reason', async () => {
    const { frame, press, ws } = await mount(copyDemo());
    const n = ws().next[0];
    await press('3');
    const f = frame();
    expect(f).toContain(`${ws().next.length} next steps`);
    // The action in the operator's words (issue 18 item 5): `needs you`, not `human_review`.
    expect(f).toMatch(new RegExp(`› P${n.priority} ${n.unit} ${n.step}\\s+${actionWord(n.action)}`));
    await press('j');
    expect(frame()).toMatch(new RegExp(`  P${n.priority} ${n.unit} ${n.step}`));
  });

  it('filters matrix rows, partials, plan and sources with `/`; esc clears the filter', async () => {
    const { frame, press, ws } = await mount(copyDemo());
    const units = ws().units;
    const target = ws().partials.find((p) => p.step === 'draft')!.unit;
    await press('/', ...target);
    expect(frame()).toContain(`/${target}_`);
    await press('\r');
    const matrixRows = frame().split('\n').filter((l) => /^[ ›]ch\d+/.test(l));
    expect(matrixRows.map((l) => l.trim().replace('›', '').split(' ')[0])).toEqual([target]);
    await press('2');
    expect(frame()).toContain(`${ws().partials.filter((p) => p.unit === target).length} match the filter`);
    expect(frame()).not.toContain(ws().partials.find((p) => p.unit !== target)!.path);
    await press('3');
    expect(frame()).toContain(target);
    expect(frame()).not.toMatch(/P\d (?!ch)/);
    await press('1', '\u001b');
    expect(frame()).toContain('filter cleared');
    // Nine rows at 80×24: the ETA line above the matrix takes the tenth (docs/foresight.md).
    expect(frame().split('\n').filter((l) => /^[ ›]ch\d+/.test(l)).length).toBe(Math.min(units.length, 9));
    // Status words filter too: only rows with a failed cell.
    await press('/', ...'failed', '\r');
    const failedUnits = [...new Set(ws().cells.filter((c) => c.status === 'failed').map((c) => c.unit))];
    expect(frame().split('\n').filter((l) => /^[ ›]ch\d+/.test(l)).length).toBe(failedUnits.length);
  });

  it('shows every command in the `?` overlay, scrolls it, and esc closes it', async () => {
    const { frame, press } = await mount(copyDemo());
    await press('?');
    const f = frame();
    expect(f).toContain('Keys');
    expect(f).toMatch(/1\s+show the Progress view/);
    expect(f).not.toContain('back up the selected file');
    await press('\u001b[6~'); // PgDn scrolls the overlay
    expect(frame()).toMatch(/b\s+back up the selected file.*partials · writes, confirms/);
    await press('G');
    expect(frame()).toContain('cancel (clears the filter)');
    const atBottom = frame().match(/Keys (\d+)-\d+\//)![1];
    await press('\u001b[5~'); // PgUp right after G scrolls at once
    expect(frame().match(/Keys (\d+)-\d+\//)![1]).not.toBe(atBottom);
    await press('\u001b');
    expect(frame()).not.toContain('Keys ');
    expect(frame()).toContain('Phases');
  });

  it('follows the live workspace: a new state reaches the header without a key', async () => {
    const { frame, live, ws } = await mount(copyDemo());
    const before = counts(ws()).halfProducts + counts(ws()).suspects;
    const { writeFileSync } = await import('node:fs');
    writeFileSync(`${ws().root}/research/ch08-research.md`, '# cut off');
    await live.refresh();
    await tick(50);
    expect(frame()).toContain(`${before + 1} partials`);
  });

  it('quits on q and on ctrl-c', async () => {
    const a = await mount(copyDemo());
    await a.press('q');
    expect(a.store.getState().quit).toBe(true);
    const b = await mount(copyDemo());
    await b.press('2', '\u0003');
    expect(b.store.getState().quit).toBe(true);
  });
});
