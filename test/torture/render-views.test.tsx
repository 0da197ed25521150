import { afterEach, describe, expect, it } from 'vitest';
import { cpSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { render } from 'ink-testing-library';
import { createLiveWorkspace, type LiveWorkspace } from '../../src/live/live-workspace.js';
import { createAppStore, disposeStore, type AppStore } from '../../src/ui/store/store.js';
import { NO_COLOR_THEME } from '../../src/text/theme.js';
import { loadConfig } from '../../src/pipeline/config/config.js';
import { openSupervisor, type Supervisor } from '../../src/run/supervisor/supervisor.js';
import { sanitizeLine } from '../../src/text/sanitize.js';
import { ControlRoom } from '../../components/ControlRoom.js';
import { DEMO, tempDir } from '../helpers/workspace.js';
import { EVIL, evilWorkspace, RAW } from './evil-workspace.js';

// Issue 9 item 4, the render edge proven on every view: a workspace whose file names,
// checkpoint.md, RESUME.md, half-products, backups, journal and agent output carry CSI,
// OSC 0/52, CR, BS, BEL, C1 controls and a bidi override, drawn in ink-testing-library with
// the NO_COLOR theme — so a frame holds no control byte of its own and any one found came
// from the workspace. Every frame of every view, overlay and dialog is checked, and the
// hostile text is seen there, escaped.

const tick = (ms = 25) => new Promise((r) => setTimeout(r, ms));
// How the start of the hostile text reads once escaped (frames cut it at different places).
const SEEN = sanitizeLine(EVIL).slice(0, 9);

const mounted: { unmount(): void; store: AppStore; live: LiveWorkspace; sup: Supervisor }[] = [];
afterEach(async () => {
  for (const m of mounted.splice(0)) {
    m.unmount();
    disposeStore(m.store);
    await m.live.close();
    await m.sup.close({ cancel: true });
  }
});

async function mount(root: string) {
  const config = await loadConfig(root);
  const sup = await openSupervisor({ root, config });
  const live = await createLiveWorkspace(root, { watch: false });
  const store = createAppStore({ live, now: () => new Date(2026, 10, 30, 5, 12, 0), session: { resumeOnQuit: true }, agents: { sup, config } });
  const r = render(<ControlRoom store={store} theme={NO_COLOR_THEME} />);
  Object.defineProperty(r.stdout, 'rows', { value: 24, configurable: true });
  Object.defineProperty(r.stdout, 'columns', { value: 80, configurable: true });
  r.stdout.emit('resize');
  mounted.push({ unmount: r.unmount, store, live, sup });
  const frames: string[] = [];
  /** The last frame, after checking it: no raw control byte, whatever the workspace holds. */
  const look = (): string => {
    const f = r.lastFrame() ?? '';
    const m = RAW.exec(f);
    expect(m ? `raw U+${m[0].codePointAt(0)!.toString(16).padStart(4, '0')} in:\n${f}` : 'clean').toBe('clean');
    frames.push(f);
    return f;
  };
  const press = async (...keys: string[]) => {
    for (const k of keys) {
      r.stdin.write(k);
      await tick(k === '\u001b' ? 80 : 30);
      look();
    }
  };
  const waitFor = async (what: string | RegExp | (() => boolean), timeout = 20_000): Promise<string> => {
    const t0 = Date.now();
    for (;;) {
      const f = look();
      if (typeof what === 'function' ? what() : typeof what === 'string' ? f.includes(what) : what.test(f)) return f;
      if (Date.now() - t0 > timeout) throw new Error(`timed out waiting for ${String(what)}; frame:\n${f}`);
      await tick(20);
    }
  };
  return { press, waitFor, frames, store };
}

describe('torture: the render edge on every view (ink-testing-library, NO_COLOR)', () => {
  it('no frame of any view, overlay or dialog carries a raw control byte; the hostile text shows escaped', { timeout: 120_000 }, async () => {
    const { root } = evilWorkspace();
    // RESUME.md an hour older than everything else, by its text and its file time, so the
    // quit offer below is made whatever the date and however long the steps before take. The
    // hour is counted on the file system's clock (the files' own times), not the process's:
    // under faketime the two differ by weeks.
    const hourAgo = new Date(statSync(join(root, 'checkpoint.md')).mtimeMs - 3_600_000);
    const two = (n: number): string => String(n).padStart(2, '0');
    const stamp = `${hourAgo.getFullYear()}-${two(hourAgo.getMonth() + 1)}-${two(hourAgo.getDate())} ${two(hourAgo.getHours())}:${two(hourAgo.getMinutes())}`;
    const resume = join(root, 'RESUME.md');
    writeFileSync(resume, readFileSync(resume, 'utf8').replace('Generated: 2026-11-28 14:03', `Generated: ${stamp}`));
    utimesSync(resume, hourAgo, hourAgo);
    const m = await mount(root);
    // Progress: the header (workspace name, checkpoint time), the matrix's evil row.
    const progress = await m.waitFor('[1 Progress]');
    expect(progress).toContain(SEEN);
    // The evil cell's detail: its path, marker line and tail; then its backups.
    await m.press('j');
    await m.press('\r');
    expect(await m.waitFor('── last')).toContain(`ch02${SEEN}`);
    await m.press('\u001b', 'B');
    expect(await m.waitFor('Backups of')).toContain(SEEN);
    await m.press('\u001b');
    // Partials: the half-products' names and reasons, the selected file's tail; a
    // confirmation naming the evil file, cancelled.
    await m.press('2');
    expect(await m.waitFor('Half-products')).toContain(SEEN);
    await m.press('j', 'b');
    expect(await m.waitFor('Confirm:')).toContain(SEEN);
    await m.press('n');
    // Plan: launch the evil unit's step; its agent prints the hostile text to stdout and
    // stderr, which the log pane draws.
    await m.press('3', '/', ...'ch02', '\r');
    await m.waitFor(/› P\d ch02/);
    await m.press('\r');
    await m.waitFor('Confirm: Launch');
    await m.press('y');
    await m.waitFor(() => m.store.getState().agents.recent.length > 0 && m.store.getState().agents.snap?.runs.length === 0);
    // The run ended: the tall output pane (o) shows the last run's output.
    await m.press('o');
    expect(await m.waitFor(/progress \\e\[2J/)).toContain('── log ');
    await m.press('o', '\u001b');
    // Sources: the three levels, RESUME.md, the warnings.
    await m.press('4');
    await m.waitFor('RESUME.md');
    // Health: the journal's unreadable lines, the cell's attempts.
    await m.press('5');
    await m.waitFor('launches ');
    // The recover report and the keys overlay.
    await m.press(':', ...'recover', '\r');
    expect(await m.waitFor('Where it stopped')).toContain(SEEN);
    await m.press('\u001b');
    // A key right behind a lone Esc can arrive with it as one Alt chord (Ink delays a lone
    // Esc a tick): each next key waits until the Esc has been taken.
    await m.waitFor(() => !(m.frames.at(-1) ?? '').includes('Where it stopped'));
    await m.press('?');
    await m.waitFor('Keys');
    await m.press('\u001b');
    await m.waitFor(() => !/^Keys /m.test(m.frames.at(-1) ?? ''));
    // Quitting with a stale RESUME.md: the offer; esc stays.
    await m.press('q');
    await m.waitFor('Quitting: write');
    await m.press('\u001b');
    // Each kind of control was on screen, escaped: CSI, OSC 0 and 52 with their BEL, CR,
    // BS, C1 CSI, bidi override — from a file name, a file's contents and the agent's output.
    const all = m.frames.join('\n');
    for (const shown of ['\\e[2J', '\\e]0;owned\\a', '\\e]52;c;', '\\r\\b', '\\x9b31m', '\\u202e', '# half \\e[2J', 'progress \\e[2J', 'warn \\e[2J']) {
      expect(all).toContain(shown);
    }
  });

  it('a gate cell whose gate file quotes controls in its errors and timestamp draws them escaped', { timeout: 60_000 }, async () => {
    const root = tempDir('checkroom-render-gates-');
    cpSync(join(DEMO, 'gates-workflow'), root, { recursive: true });
    const gate = join(root, '.claude/context/history/gates/1764400000-k3f9a2/04-developer.json');
    const json = JSON.parse(readFileSync(gate, 'utf8'));
    writeFileSync(gate, JSON.stringify({ ...json, errors: [`bad ${EVIL}`, ...json.errors], timestamp: `2025 ${EVIL}` }));
    const m = await mount(root);
    await m.waitFor('[1 Progress]');
    // The matrix's failed cell, then its detail: the gate line quotes the first error.
    const steps = m.store.getState().ws.pipeline.steps.map((s) => s.id);
    await m.press(...Array(steps.indexOf('s04')).fill('l'), '\r');
    // The gate line cuts the error at a word ("bad…"); the file's own last line shows it, escaped.
    const detail = await m.waitFor('── last');
    expect(detail).toContain(': bad');
    expect(detail).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
  });
});
