import { cpSync, existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { statusCommand } from '../../../src/cli/commands/core-commands.js';
import { blockersOf } from '../../../src/gates/blocked.js';
import type { GateCell } from '../../../src/gates/types.js';
import { loadWorkspace } from '../../../src/workspace.js';
import { DEMO, tempDir } from '../../helpers/workspace.js';

// A gate workflow's cells say what they wait on, their verdicts agree with the suspects list,
// and path / bytes / disk speak of the same file. On copies of demo-workspace/gates-workflow
// and gate trees written here.

const ID = '1764400000-k3f9a2';
const GATES = `.claude/context/history/gates/${ID}`;
const ART = '.claude/context/artifacts';

interface JsonCell {
  unit: string;
  step: string;
  path: string;
  status: string;
  disk: string;
  bytes: number;
  chars: number;
  verdict: string | null;
  blockedBy: string[];
}
interface StatusJson {
  counts: { suspects: number };
  cells: JsonCell[];
  partials: { step: string; verdict: string }[];
  suspects: { unit: string; step: string }[];
  next: { step: string; action: string; reason: string; blocks: number }[];
}

function demoCopy(): string {
  const dir = tempDir('checkroom-gblocked-');
  cpSync(join(DEMO, 'gates-workflow'), dir, { recursive: true });
  return dir;
}

function put(root: string, rel: string, content: unknown) {
  mkdirSync(dirname(join(root, rel)), { recursive: true });
  writeFileSync(join(root, rel), typeof content === 'string' ? content : JSON.stringify(content, null, 2));
}

async function statusJson(dir: string): Promise<StatusJson> {
  let text = '';
  await statusCommand([dir], true, { paint: (_t, x) => x, ascii: true, width: 100 }, { write: (x) => void (text += x) });
  return JSON.parse(text);
}

const step = (n: string | number, agent: string, deps: string[], status = 'pending') => ({ step_number: n, name: `Step ${n}`, agent, dependencies: deps, status });

describe('blockedBy of gate cells', () => {
  it('names the failed gate a step waits on, and the failure blocks exactly those cells (demo)', async () => {
    const j = await statusJson(demoCopy());
    const cell = (id: string) => j.cells.find((c) => c.step === id)!;
    // Step 6 depends on 4 (failed), 4.5 (cut off) and 5 (interrupted): only a failure blocks.
    expect(cell('s06').blockedBy).toEqual([`${ID}/s04`]);
    for (const id of ['s00', 's00.1', 's01', 's02', 's03', 's04', 's04.5', 's05']) expect(cell(id).blockedBy, id).toEqual([]);
    const retry = j.next.find((n) => n.step === 's04')!;
    expect(retry.action).toBe('retry');
    expect(retry.blocks).toBe(j.cells.filter((c) => c.blockedBy.includes(`${ID}/s04`)).length);
    expect(retry.blocks).toBe(1);
  });

  it('follows dependencies transitively, in step order, ignoring steps that are not in the workflow', async () => {
    const root = tempDir('checkroom-gblocked-');
    const id = '1800000000-tr1';
    put(root, 'checkroom.yaml', 'preset: gates\n');
    put(root, `${ART}/plan-${id}.json`, {
      plan_id: id,
      status: 'in_progress',
      steps: [
        step(0, 'planner', [], 'completed'),
        step(1, 'analyst', ['step-0'], 'completed'),
        step('1.5', 'security', ['step-0'], 'completed'),
        step(2, 'developer', ['step-1']),
        step(3, 'qa', ['step-2', 'step-1.5', 'step-9']),
      ],
    });
    put(root, `.claude/context/history/gates/${id}/00-planner.json`, { validation_status: 'pass' });
    put(root, `.claude/context/history/gates/${id}/01-analyst.json`, { valid: false, errors: ['/scope: must be string'] });
    put(root, `.claude/context/history/gates/${id}/01.5-security.json`, { allowed: false, reason: 'secrets in the repo' });
    const s = await loadWorkspace(root);
    const by = (step: string) => s.cells.find((c) => c.step === step)!;
    expect(by('s01').status).toBe('failed');
    expect(by('s01.5').status).toBe('failed');
    expect(by('s02').blockedBy).toEqual([`${id}/s01`]);
    // Through s02 to s01, and directly to s01.5; step 9 is not a step and blocks nothing.
    expect(by('s03').blockedBy).toEqual([`${id}/s01`, `${id}/s01.5`]);
    expect(by('s00').blockedBy).toEqual([]);
    expect(s.next.filter((n) => n.priority === 1).map((n) => [n.step, n.blocks])).toEqual([
      ['s01', 2],
      ['s01.5', 1],
    ]);
  });

  it('uses each workflow’s own dependencies when two workflows share step numbers', async () => {
    const root = tempDir('checkroom-gblocked-');
    const a = '1800000002-aaa';
    const b = '1800000001-bbb';
    put(root, 'checkroom.yaml', 'preset: gates\n');
    for (const [id, deps] of [
      [a, ['step-1']],
      [b, ['step-0']],
    ] as const) {
      put(root, `${ART}/plan-${id}.json`, { plan_id: id, status: 'in_progress', steps: [step(0, 'planner', [], 'completed'), step(1, 'analyst', ['step-0'], 'completed'), step(2, 'developer', [...deps])] });
      put(root, `.claude/context/history/gates/${id}/00-planner.json`, { validation_status: 'pass' });
      put(root, `.claude/context/history/gates/${id}/01-analyst.json`, { validation_status: 'fail', errors: ['/title: required'] });
    }
    const s = await loadWorkspace(root);
    const cell = (unit: string, step: string) => s.cells.find((c) => c.unit === unit && c.step === step)!;
    expect(cell(a, 's02').blockedBy).toEqual([`${a}/s01`]);
    expect(cell(b, 's02').blockedBy).toEqual([]);
    expect(s.next.find((n) => n.unit === b && n.step === 's01')!.blocks).toBe(0);
  });

  it('ends on a dependency cycle instead of looping', () => {
    const order = ['s01', 's02', 's03'];
    const deps = new Map([
      ['s01', ['s03']],
      ['s02', ['s01']],
      ['s03', ['s02']],
    ]);
    const r = blockersOf(order, deps, new Map([['s01', 'failed'], ['s02', 'not_started'], ['s03', 'not_started']] as const));
    expect(r.get('s02')).toEqual(['s01']);
    expect(r.get('s03')).toEqual(['s01']);
  });
});

describe('a failed gate and the suspects list', () => {
  it('agree: a failed validation is a failure with its class, not a suspicious marker', async () => {
    const dir = demoCopy();
    const j = await statusJson(dir);
    const s04 = j.cells.find((c) => c.step === 's04')!;
    expect(s04).toMatchObject({ status: 'failed', verdict: null });
    // Every cell's verdict is where that verdict is listed: suspicious in suspects, others in partials or nowhere.
    const suspicious = j.cells.filter((c) => c.verdict === 'suspicious').map((c) => `${c.unit}/${c.step}`);
    expect(suspicious).toEqual(j.suspects.map((p) => `${p.unit}/${p.step}`));
    expect(j.counts.suspects).toBe(j.suspects.length);
    for (const p of j.partials) expect(j.cells.find((c) => c.step === p.step)!.verdict).toBe(p.verdict);
    // The reason stays available: the gate proof and the plan entry carry the failure class.
    const s = await loadWorkspace(dir);
    expect((s.cells.find((c) => c.step === 's04') as GateCell).gate).toMatchObject({ kind: 'failed', failureClass: 'VERIFICATION_FAILED' });
    expect(j.next.find((n) => n.step === 's04')!.reason).toMatch(/^developer: VERIFICATION_FAILED: validation failed \(3 errors: /);
  });
});

describe('path, bytes and disk of a gate cell', () => {
  it('speak of the same file for every cell; an interrupted step has no gate on disk', async () => {
    const dir = demoCopy();
    const j = await statusJson(dir);
    for (const c of j.cells) {
      const on = existsSync(join(dir, c.path));
      expect(c.disk !== 'missing', `${c.step} disk ${c.disk}`).toBe(on);
      expect(c.bytes, c.step).toBe(on ? statSync(join(dir, c.path)).size : 0);
    }
    const s05 = j.cells.find((c) => c.step === 's05')!;
    expect(s05).toMatchObject({ path: `${GATES}/05-qa.json`, status: 'partial', disk: 'missing', bytes: 0, chars: 0, verdict: 'almost_certainly_partial' });
    // The evidence of the interruption is named by the cell's gate proof, and is on disk.
    const s = await loadWorkspace(dir);
    const proof = (s.cells.find((c) => c.step === 's05') as GateCell).gate;
    expect(proof.kind).toBe('interrupted');
    expect(existsSync(join(dir, proof.reasoning!))).toBe(true);
  });
});
