import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { scanGateWorkspace } from '../../../src/gates/scan.js';
import { gateWorkspaceState } from '../../../src/gates/state.js';
import { describeProof } from '../../../src/gates/cell-detail.js';
import type { GateCell } from '../../../src/gates/types.js';

// Issue 8 item 6, gate workflows: phase-plan tasks belong to their workflow step, and a gate
// cut off mid-write counts as passed when the rest of the disk proves it (and says which proof).

const ID = '1735123456-abc123';
const GATES = `.claude/context/history/gates/${ID}`;
const ART = '.claude/context/artifacts';
let root: string;
const put = async (rel: string, content: unknown) => {
  await mkdir(dirname(join(root, rel)), { recursive: true });
  await writeFile(join(root, rel), typeof content === 'string' ? content : JSON.stringify(content, null, 2));
};
const step = (n: number | string, agent: string, deps: string[] = [], status = 'pending', extra: object = {}) => ({ step_number: n, name: `Step ${n}`, agent, dependencies: deps, status, ...extra });
const one = async () => (await scanGateWorkspace(root)).workflows[0];
const tasks = (n: number, extra: (i: number) => object = () => ({})) =>
  Array.from({ length: n }, (_, i) => ({ taskId: `P1-T${i + 1}`, name: `Task ${i + 1}`, assignedAgent: 'developer', dependencies: i ? [`P1-T${i}`] : [], status: 'completed', ...extra(i) }));

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'checkroom-gates-src-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('phase plans map to their workflow step', () => {
  it('folds the tasks of a phase plan for step-4 into step 04, instead of inventing 01.1…01.6', async () => {
    await put(`${ART}/plan-${ID}.json`, {
      name: 'Hierarchical',
      steps: [step(0, 'planner'), step(1, 'analyst', ['step-0']), step(4, 'developer', ['step-1'], 'in_progress', { phase_plan_path: `${ART}/plan-${ID}-phase-1.json` }), step(5, 'qa', ['step-4'])],
    });
    await put(`${ART}/plan-${ID}-phase-1.json`, { metadata: { phaseId: 1, workflowStep: 'step-4' }, tasks: tasks(6) });
    for (const g of ['00-planner', '01-analyst', '04-developer']) await put(`${GATES}/${g}.json`, { valid: true });
    const w = await one();
    expect(w.steps.map((s) => `${s.number}:${s.agent}:${s.status}`)).toEqual(['00:planner:done', '01:analyst:done', '04:developer:done', '05:qa:not_started']);
    expect(w.steps[2].name).toBe('Step 4');
    expect(w.next).toEqual({ number: '05', agent: 'qa', name: 'Step 5' });
  });

  it('reads a task-level workflowStep, and a phase entry step, when the top plan has no such step', async () => {
    await put(`${ART}/plan-${ID}.json`, { name: 'Phased', steps: [step(0, 'planner')], phases: [{ phase: 2, step: 'step-3', phase_plan_path: `plan-${ID}-phase-2.json` }] });
    await put(`${ART}/plan-${ID}-phase-1.json`, { metadata: { phaseId: 1, name: 'Build' }, tasks: tasks(3, () => ({ workflowStep: 'step-4', status: 'in_progress' })) });
    await put(`${ART}/plan-${ID}-phase-2.json`, { metadata: { phaseId: 2 }, tasks: [{ taskId: 'P2-T1', name: 'Design API', assignedAgent: 'architect', dependencies: [] }] });
    const w = await one();
    expect(w.steps.map((s) => [s.number, s.agent, s.name, s.planStatus])).toEqual([
      ['00', 'planner', 'Step 0', 'pending'],
      ['03', 'architect', 'Design API', null],
      ['04', 'developer', 'Task 1 (+2 tasks)', 'in_progress'],
    ]);
    // Task-to-task dependencies inside step 04 are not dependencies of step 04 on itself.
    expect(w.steps[2].dependencies).toEqual([]);
  });
});

describe('a gate cut off mid-write', () => {
  const CUT = '{\n  "valid": true,\n  "errors": [],\n  "validated_data": {"title": "Impl';
  const plan = (status4 = 'completed') => put(`${ART}/plan-${ID}.json`, { steps: [step(0, 'planner'), step(4, 'developer', ['step-0'], status4), step(5, 'qa', ['step-4']), step(6, 'writer', ['step-5'])] });

  it('counts as passed when the registry lists its artifact on disk, and says which proof', async () => {
    await plan();
    await put(`${GATES}/00-planner.json`, { valid: true });
    await put(`${GATES}/04-developer.json`, CUT);
    await put(`${ART}/dev-manifest.json`, { files: [] });
    await put(`${ART}/registry-${ID}.json`, { workflow_id: ID, artifacts: { 'dev-manifest': { name: 'dev-manifest', step: 4, agent: 'developer', path: `${ART}/dev-manifest.json` } } });
    const w = await one();
    expect(w.steps.find((s) => s.number === '04')).toMatchObject({ status: 'done' });
    expect(w.lastPassed).toBe('04');
    expect(w.next?.number).toBe('05');
    const text = w.warnings.map((x) => x.message).join('\n');
    expect(text).toContain(`counted as passed on other proof: the registry lists its artifact "dev-manifest" and ${ART}/dev-manifest.json is on disk; the plan says completed`);
    const s = gateWorkspaceState(root, await scanGateWorkspace(root), { now: 0 });
    const cell = s.cells.find((c) => c.step === 's04') as GateCell;
    expect(cell).toMatchObject({ status: 'done' });
    expect(describeProof(cell.gate)).toMatch(/^cut off mid-write, counted as passed: the registry lists/);
    // Not a half-product, so never planned for "back up and redo".
    expect(s.partials).toEqual([]);
    expect(s.next.some((n) => n.step === 's04')).toBe(false);
  });

  it('counts as passed when a later step passed its gate', async () => {
    await plan('in_progress');
    await put(`${GATES}/00-planner.json`, { valid: true });
    await put(`${GATES}/04-developer.json`, CUT);
    await put(`${GATES}/05-qa.json`, { validation_status: 'pass' });
    const w = await one();
    expect(w.steps.map((s) => s.status)).toEqual(['done', 'done', 'done', 'not_started']);
    expect(w.steps[1].gate?.provenBy).toEqual(['a later step, 05, passed its gate']);
  });

  it('stays unproven on the plan claim alone, or when its first bytes say it failed', async () => {
    await plan();
    await put(`${GATES}/00-planner.json`, { valid: true });
    await put(`${GATES}/04-developer.json`, CUT);
    let w = await one();
    expect(w.steps[1].status).toBe('partial');
    expect(w.warnings.map((x) => x.message).join('\n')).toMatch(/gate is cut off mid-write \(.*\); step treated as not passed — re-run its validation/);
    await put(`${GATES}/04-developer.json`, '{"valid": false, "errors": ["/tests: must be');
    await put(`${GATES}/05-qa.json`, { valid: true });
    w = await one();
    expect(w.steps[1].status).toBe('partial');
    expect(w.warnings.map((x) => x.message).join('\n')).toContain('its first bytes say it failed; step treated as not passed');
  });
});
