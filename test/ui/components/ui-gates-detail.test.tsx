import { afterEach, describe, expect, it } from 'vitest';
import { cpSync, statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { createLiveWorkspace } from '../../../src/live/live-workspace.js';
import { createAppStore } from '../../../src/ui/store/store.js';
import { NO_COLOR_THEME } from '../../../src/text/theme.js';
import { renderRoom, tick, unmountAll } from '../../helpers/ink.js';
import { DEMO, tempDir } from '../../helpers/workspace.js';

// The cell detail (Enter on a matrix cell) of a gate-file workflow speaks in gate terms: the
// gate file's real size, what the gate proves, the plan's claim against it — never the
// marker wording meant for the book's shared long-memory entries. On a copy of the demo.

const ID = '1764400000-k3f9a2';
const GATES = `.claude/context/history/gates/${ID}`;
const WRITTEN = new Date(2026, 10, 29, 10, 2, 0);

async function mount() {
  const dir = tempDir('checkroom-gates-detail-');
  cpSync(join(DEMO, 'gates-workflow'), dir, { recursive: true });
  for (const f of ['00.1-orchestrator.json', '04-developer.json']) utimesSync(join(dir, GATES, f), WRITTEN, WRITTEN);
  const live = await createLiveWorkspace(dir, { watch: false });
  const store = createAppStore({ live, ascii: true, now: () => new Date(2026, 10, 30, 5, 12, 0) });
  const { frame, press } = await renderRoom(store, live, NO_COLOR_THEME, 24, 100);
  const waitFor = async (text: string, timeout = 5000) => {
    const t0 = Date.now();
    while (!frame().includes(text)) {
      if (Date.now() - t0 > timeout) throw new Error(`timed out waiting for ${text}; frame:\n${frame()}`);
      await tick(20);
    }
  };
  const steps = store.getState().ws.pipeline.steps.map((s) => s.id);
  /** Open the detail of one step of the (only) workflow, from the top-left cell. */
  const open = async (step: string) => {
    if (frame().includes('(esc back')) await press('\u001b');
    await press(...Array(steps.length).fill('h'), ...Array(steps.indexOf(step)).fill('l'), '\r');
    await waitFor('(esc back');
    return frame();
  };
  return { dir, open, frame, waitFor };
}

afterEach(async () => {
  await unmountAll();
});

const row = (f: string, key: string) => f.split('\n').find((l) => l.startsWith(key.padEnd(11))) ?? '';

describe('cell detail of a gate-file workflow', () => {
  it('shows a failed gate: its real size and time, the failure class, the plan against the gate', async () => {
    const m = await mount();
    const f = await m.open('s04');
    const size = statSync(join(m.dir, GATES, '04-developer.json')).size;
    expect(f).toContain('04 developer');
    expect(row(f, 'path')).toContain(`${GATES}/04-developer.json`);
    expect(row(f, 'size')).toContain(`${size} bytes · `);
    expect(row(f, 'size')).toContain('written 2026-11-29 10:02');
    expect(row(f, 'gate')).toMatch(/^gate\s+failed VERIFICATION_FAILED · \d+ errors?: /);
    expect(row(f, 'claims')).toMatch(/plan: in progress\s+disk: gate failed/);
    expect(f).not.toContain('0 bytes');
    expect(f).not.toContain('marker');
    expect(f).not.toContain('no file');
    expect(f).not.toContain('checkpoint.md');
  });

  it('shows a passing gate as the proof, with no marker wording', async () => {
    const m = await mount();
    const f = await m.open('s00.1');
    expect(row(f, 'gate')).toMatch(/^gate\s+passed \(file, allowed gate\)/);
    expect(row(f, 'size')).toContain(`${statSync(join(m.dir, GATES, '00.1-orchestrator.json')).size} bytes`);
    expect(row(f, 'claims')).toMatch(/plan: done\s+disk: gate passed/);
    expect(f).not.toContain('has no marker');
    expect(f).not.toContain('marker found');
    // The gate file's own last lines follow the facts.
    await m.waitFor('── last');
  });

  it('says when there is no gate yet, and names the reasoning of an interrupted step', async () => {
    const m = await mount();
    let f = await m.open('s06');
    expect(row(f, 'size')).toContain('no gate file on disk');
    expect(row(f, 'gate')).toMatch(/^gate\s+no gate yet$/);
    expect(row(f, 'claims')).toMatch(/disk: no gate$/);
    f = await m.open('s05');
    expect(row(f, 'gate')).toContain(`no gate yet · interrupted: no final decision in reasoning/${ID}/05-qa.json`);
    expect(row(f, 'claims')).toMatch(/disk: reasoning, no gate$/);
    f = await m.open('s04.5');
    expect(row(f, 'gate')).toContain('cut off mid-write: proves nothing');
  });
});
