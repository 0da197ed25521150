import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scanGateWorkspace } from '../../../src/gates/scan.js';
import { gateStepId, gateWorkspaceState } from '../../../src/gates/state.js';
import type { GateCell } from '../../../src/gates/types.js';
import { loadWorkspace } from '../../../src/workspace.js';
import { statusCommand } from '../../../src/cli/commands/core-commands.js';
import { DEMO, tempDir } from '../../helpers/workspace.js';

// Gate-file workflows (DOMAIN.md section 7) as the control room's state: one unit per
// workflow, one cell per plan step, the gate as the proof.

const ID = '1735123456-abc123';
const GATES = `.claude/context/history/gates/${ID}`;
const ART = '.claude/context/artifacts';
const REASON = `.claude/context/history/reasoning/${ID}`;

function put(root: string, rel: string, content: unknown) {
  mkdirSync(dirname(join(root, rel)), { recursive: true });
  writeFileSync(join(root, rel), typeof content === 'string' ? content : JSON.stringify(content, null, 2));
}

const step = (n: string | number, agent: string, deps: string[], status: string) => ({ step_number: n, name: `Step ${n}`, agent, dependencies: deps, status });

function builtTree(): string {
  const root = tempDir('checkroom-gstate-');
  put(root, 'checkroom.yaml', 'preset: gates\n');
  put(root, `${ART}/plan-${ID}.json`, {
    plan_id: ID,
    name: 'Add search',
    status: 'in_progress',
    steps: [
      step(0, 'planner', [], 'completed'),
      step(1, 'analyst', ['step-0'], 'completed'),
      step(2, 'developer', ['step-1'], 'completed'),
      step('4.5', 'devops', ['step-1'], 'in_progress'),
      step(5, 'qa', ['step-2'], 'in_progress'),
      step(6, 'writer', ['step-5'], 'pending'),
    ],
  });
  put(root, `${GATES}/00-planner.json`, { validation_status: 'pass' });
  put(root, `${GATES}/01-analyst.json`, '{"valid": tru }'); // malformed JSON
  put(root, `${GATES}/02-developer.json`, { valid: false, errors: ['/tests/failed: must be equal to 0'] });
  put(root, `${GATES}/04.5-devops.json`, '{\n  "valid": true,\n  "errors": [],\n  "validated_data": {"title": "CI pipe');
  put(root, `${REASON}/05-qa.json`, { assumptions: ['a'], decision_criteria: [], tradeoffs: [], open_questions: ['which browsers?'] });
  return root;
}

describe('gateWorkspaceState', () => {
  it('maps a built gate tree: steps as cells, failed validation, cut-off gate as partial, malformed JSON as a warning', async () => {
    const root = builtTree();
    const s = gateWorkspaceState(root, await scanGateWorkspace(root));
    expect(s.preset).toBe('gates');
    expect(s.units).toEqual([ID]);
    expect(s.pipeline.steps.map((x) => x.id)).toEqual(['s00', 's01', 's02', 's04.5', 's05', 's06']);
    expect(s.pipeline.steps.find((x) => x.id === 's02')!.label).toBe('02 developer');
    const cell = (id: string) => s.cells.find((c) => c.step === id)!;
    expect(cell('s00')).toMatchObject({ status: 'done', disk: 'done', checkpoint: 'done' });
    expect(cell('s02').status).toBe('failed');
    // A failed validation is a failure, not a half-product: no triage verdict; its class is
    // in the gate proof and the retry's reason.
    expect(cell('s02').triage).toBeNull();
    expect((cell('s02') as GateCell).gate.failureClass).toBe('VERIFICATION_FAILED');
    expect(cell('s04.5')).toMatchObject({ status: 'partial', path: `${GATES}/04.5-devops.json` });
    expect(cell('s04.5').triage!.reason).toContain('cut off');
    expect(cell('s05').status).toBe('partial'); // reasoning with no final decision and no gate
    expect(cell('s05').triage!.reason).toContain('interrupted');
    expect(cell('s06').status).toBe('not_started');
    // The malformed gate: partial (not passed), and a warning naming the file.
    expect(cell('s01').status).toBe('partial');
    expect(s.warnings.some((w) => w.source === `${GATES}/01-analyst.json` && /cannot be read/.test(w.message))).toBe(true);
    // Half-products are the broken gates and the interrupted step's reasoning file (issue 18
    // item 4); discrepancies are plan claims without a passing gate.
    expect(s.partials.map((p) => p.step).sort()).toEqual(['s01', 's04.5', 's05']);
    expect(s.partials.find((p) => p.step === 's05')!.path).toMatch(/reasoning\/.*05-/);
    expect(s.discrepancies.map((d) => d.step).sort()).toEqual(['s01', 's02']);
    // Next: the failure first, then the half-products and the interrupted step.
    expect(s.next[0]).toMatchObject({ priority: 1, step: 's02', action: 'retry' });
    expect(s.next[0].reason).toContain('VERIFICATION_FAILED');
    expect(s.next.map((n) => n.step)).toEqual(expect.arrayContaining(['s04.5', 's05']));
    expect(s.phases[0]).toMatchObject({ done: 1, total: 6 });
  });

  it('reads the demo gate workflow through loadWorkspace (preset: gates) and checkroom status shows its steps', async () => {
    const dir = tempDir('checkroom-gdemo-');
    cpSync(join(DEMO, 'gates-workflow'), dir, { recursive: true });
    const s = await loadWorkspace(dir);
    expect(s.preset).toBe('gates');
    expect(s.units).toEqual(['1764400000-k3f9a2']);
    expect(s.pipeline.steps.map((x) => x.id)).toEqual(['s00', 's00.1', 's01', 's02', 's03', 's04', 's04.5', 's05', 's06']);
    const by = (id: string) => s.cells.find((c) => c.step === id)!;
    expect(by('s03').status).toBe('done'); // skipped counts as settled
    expect(by('s04')).toMatchObject({ status: 'failed' });
    expect(by('s04').triage).toBeNull();
    expect((by('s04') as GateCell).gate.failureClass).toBe('VERIFICATION_FAILED');
    expect(by('s04.5').status).toBe('partial');
    expect(s.partials.map((p) => p.step)).toEqual(['s04.5', 's05']);
    expect(s.discrepancies.map((d) => d.step)).toEqual(['s04.5']);
    expect(s.next[0]).toMatchObject({ step: 's04', action: 'retry' });
    expect(s.next[0].reason).toMatch(/^developer: VERIFICATION_FAILED/);
    let text = '';
    await statusCommand([dir], false, { paint: (_t, x) => x, ascii: true, width: 100 }, { write: (x) => void (text += x) });
    expect(text).toContain('5/9 done');
    expect(text).toContain('1764400000-k3f9a2');
    expect(text).toMatch(/P1 1764400000-k3f9a2 s04\s+retry/);
    expect(gateStepId('04.5')).toBe('s04.5');
  });
});
