import { cpSync, mkdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { statusCommand } from '../../../src/cli/commands/core-commands.js';
import { isGateCell } from '../../../src/gates/cell-detail.js';
import type { GateCell } from '../../../src/gates/types.js';
import { loadWorkspace } from '../../../src/workspace.js';
import { DEMO, tempDir } from '../../helpers/workspace.js';

// A gate cell's facts are the gate file's, read from disk (size, characters, time), and
// `marker` means "proof of completion found" — for gates, a passing (or skipped) gate file.
// On copies of demo-workspace/gates-workflow and gate trees written here.

const ID = '1764400000-k3f9a2';
const GATES = `.claude/context/history/gates/${ID}`;

function demoCopy(): string {
  const dir = tempDir('checkroom-gfacts-');
  cpSync(join(DEMO, 'gates-workflow'), dir, { recursive: true });
  return dir;
}

function put(root: string, rel: string, content: string) {
  mkdirSync(dirname(join(root, rel)), { recursive: true });
  writeFileSync(join(root, rel), content);
}

const codePoints = (abs: string): number => [...readFileSync(abs, 'utf8')].length;

async function statusJson(dir: string): Promise<{ cells: Record<string, unknown>[]; partials: Record<string, unknown>[] }> {
  let text = '';
  await statusCommand([dir], true, { paint: (_t, x) => x, ascii: true, width: 100 }, { write: (x) => void (text += x) });
  return JSON.parse(text);
}

describe('gate cell facts', () => {
  it('are the gate file on disk: exists, bytes, characters and time, for every cell of the demo', async () => {
    const dir = demoCopy();
    const s = await loadWorkspace(dir);
    const withFile = s.cells.filter((c) => c.exists);
    expect(withFile.map((c) => c.step)).toEqual(['s00', 's00.1', 's01', 's02', 's03', 's04', 's04.5']);
    for (const c of withFile) {
      const st = statSync(join(dir, c.path));
      expect(c.bytes, c.step).toBe(st.size);
      expect(c.bytes, c.step).toBeGreaterThan(0);
      expect(c.chars, c.step).toBe(codePoints(join(dir, c.path)));
      expect(c.mtimeMs, c.step).toBe(st.mtimeMs);
    }
    for (const c of s.cells.filter((x) => !x.exists)) expect([c.step, c.bytes, c.chars, c.mtimeMs]).toEqual([c.step, 0, 0, 0]);
  });

  it('say "proof found" only for a passing or skipped gate, and the disk state matches what is there', async () => {
    const s = await loadWorkspace(demoCopy());
    const by = (id: string) => s.cells.find((c) => c.step === id)!;
    expect(s.cells.filter((c) => c.marker).map((c) => c.step)).toEqual(['s00', 's00.1', 's01', 's02', 's03']);
    for (const c of s.cells) expect(c.marker, c.step).toBe(c.disk === 'done');
    // A failed gate is a file that proves nothing: on disk, not missing.
    expect(by('s04')).toMatchObject({ status: 'failed', disk: 'partial', exists: true, marker: false });
    expect(by('s04.5')).toMatchObject({ status: 'partial', disk: 'partial', exists: true, marker: false });
    expect(by('s06')).toMatchObject({ status: 'not_started', disk: 'missing', exists: false, marker: false });
    // The cells carry their gate, in gate terms, for the detail view.
    const proof = (id: string) => (by(id) as GateCell).gate;
    expect(s.cells.every(isGateCell)).toBe(true);
    expect(proof('s00.1')).toMatchObject({ kind: 'passed', shape: 'allowed' });
    expect(proof('s03')).toMatchObject({ kind: 'skipped', shape: 'skipped' });
    expect(proof('s04')).toMatchObject({ kind: 'failed', failureClass: 'VERIFICATION_FAILED' });
    expect(proof('s04').errors.length).toBeGreaterThan(0);
    expect(proof('s04.5')).toMatchObject({ kind: 'cut_off', shape: 'truncated' });
    expect(proof('s05')).toMatchObject({ kind: 'interrupted', reasoning: `.claude/context/history/reasoning/${ID}/05-qa.json` });
    expect(proof('s06').kind).toBe('none');
  });

  it('reach checkroom status --json with the documented field names, cells and partials agreeing', async () => {
    const dir = demoCopy();
    const j = await statusJson(dir);
    const cell = (id: string) => j.cells.find((c) => c.step === id)!;
    const size = (rel: string) => statSync(join(dir, rel)).size;
    expect(cell('s00')).toMatchObject({ bytes: size(`${GATES}/00-planner.json`), chars: codePoints(join(dir, `${GATES}/00-planner.json`)), marker: true, disk: 'done' });
    expect(cell('s04')).toMatchObject({ bytes: size(`${GATES}/04-developer.json`), marker: false, disk: 'partial', status: 'failed' });
    expect(cell('s06')).toMatchObject({ bytes: 0, chars: 0, marker: false, disk: 'missing' });
    expect(Object.keys(cell('s04')).sort()).toEqual(['batch', 'blockedBy', 'bytes', 'chars', 'checkpoint', 'disk', 'marker', 'path', 'status', 'step', 'unit', 'verdict']);
    // The cut-off gate and the interrupted step 05 (its reasoning file): every half-step counts (issue 18 item 4).
    expect(j.partials.map((p) => p.step)).toEqual(['s04.5', 's05']);
    expect(j.partials[0]).toMatchObject({ step: 's04.5', bytes: cell('s04.5').bytes, chars: cell('s04.5').chars });
    expect(j.partials[1]).toMatchObject({ path: `.claude/context/history/reasoning/${ID}/05-qa.json` });
    expect(j.partials[0].bytes).toBe(size(`${GATES}/04.5-devops.json`));
  });

  it('count characters, not bytes, in a gate with non-ASCII text, and follow the file when it is rewritten', async () => {
    const root = tempDir('checkroom-gfacts-');
    const id = '1800000000-zz1';
    const rel = `.claude/context/history/gates/${id}/00-planner.json`;
    put(root, 'checkroom.yaml', 'preset: gates\n');
    put(root, rel, JSON.stringify({ valid: false, errors: ['/标题: 必须是字符串'] }));
    let c = (await loadWorkspace(root)).cells[0];
    expect(c.bytes).toBe(statSync(join(root, rel)).size);
    expect(c.chars).toBe(codePoints(join(root, rel)));
    expect(c.chars).toBeLessThan(c.bytes);
    expect(c).toMatchObject({ status: 'failed', marker: false });
    put(root, rel, JSON.stringify({ validation_status: 'pass', timestamp: '2026-11-29T10:02:00Z' }));
    c = (await loadWorkspace(root)).cells[0];
    expect(c).toMatchObject({ status: 'done', marker: true, bytes: statSync(join(root, rel)).size });
  });

  it('treat a skipped gate as proof even when it says valid: false (the step is settled)', async () => {
    const root = tempDir('checkroom-gfacts-');
    const rel = '.claude/context/history/gates/1800000000-zz2/03-ux-expert.json';
    put(root, 'checkroom.yaml', 'preset: gates\n');
    put(root, rel, JSON.stringify({ skipped: true, valid: false, reason: 'no UI in this change' }));
    const t = new Date(2026, 10, 29, 10, 2, 0);
    utimesSync(join(root, rel), t, t);
    const c = (await loadWorkspace(root)).cells[0];
    expect(c).toMatchObject({ status: 'done', disk: 'done', marker: true, exists: true, mtimeMs: t.getTime() });
    expect((c as GateCell).gate.kind).toBe('skipped');
  });
});
