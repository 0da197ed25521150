import { cpSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { statusCommand } from '../../../src/cli/commands/core-commands.js';
import { scanGateWorkspace } from '../../../src/gates/scan.js';
import { taskStep } from '../../../src/gates/plan.js';
import { parseWorkflowFile } from '../../../src/gates/workflow-file.js';
import { loadWorkspace } from '../../../src/workspace.js';
import { createLiveWorkspace } from '../../../src/live/live-workspace.js';
import { REPO, tempDir } from '../../helpers/workspace.js';

// Issue 18 item 4: a gate-file workflow in the public agent-studio format
// (test/fixtures/agent-studio-flow, see its README) reads as exactly the workflow file's
// steps, with the dependencies the workflow file gives, and no invented steps or warnings.

const FIXTURE = join(REPO, 'test', 'fixtures', 'agent-studio-flow');
const ID = '1764800000-q7m2x9';
const ARTIFACTS = '.claude/context/artifacts';

/** The fixture's eight steps: number, agent, name, status, dependencies (from the workflow file). */
const STEPS = [
  '00 planner "Planning Phase" done []',
  '01 analyst "Requirements Analysis" done [00]',
  '02 architect "System Architecture" done [00,01]',
  '03 qa "Test Design" done [01]',
  '04 developer "Implementation" failed [00,02]',
  '05 technical-writer "Documentation" partial [02,03]',
  '06 code-reviewer "Code Review" not_started [04]',
  '07 qa "QA Signoff" not_started [03,04,06]',
];

function copy(): string {
  const dir = tempDir('checkroom-agent-studio-');
  cpSync(FIXTURE, dir, { recursive: true });
  return dir;
}

async function statusJson(dir: string): Promise<{ cells: { step: string; status: string; blockedBy: string[]; checkpoint: string | null }[]; partials: { step: string; path: string; bytes: number; chars: number }[]; next: { step: string; action: string; blocks: number }[]; warnings: unknown[]; counts: Record<string, number> }> {
  let text = '';
  await statusCommand([dir], true, { paint: (_t, x) => x, ascii: true, width: 100 }, { write: (x) => void (text += x) });
  return JSON.parse(text);
}

/** Rewrite the phase plans' task ids (and the dependencies that name them) in a copy. */
function renameTasks(dir: string, name: (n: number) => string): void {
  for (const f of [`plan-${ID}-phase-1.json`, `plan-${ID}-phase-2.json`]) {
    const abs = join(dir, ARTIFACTS, f);
    const p = JSON.parse(readFileSync(abs, 'utf8'));
    const re = (id: string): string => name(Number(/\d+/.exec(id)![0]));
    for (const t of p.tasks) {
      t.taskId = re(t.taskId);
      t.dependencies = t.dependencies.map(re);
    }
    writeFileSync(abs, JSON.stringify(p, null, 2));
  }
}

describe('agent-studio format (issue 18 item 4)', () => {
  it('gives exactly the workflow file\'s steps, their dependencies, next and no warning', async () => {
    const ws = await scanGateWorkspace(FIXTURE);
    expect(ws.workflows).toHaveLength(1);
    const w = ws.workflows[0];
    expect(w.steps.map((s) => `${s.number} ${s.agent} "${s.name}" ${s.status} [${s.dependencies.join(',')}]`)).toEqual(STEPS);
    expect(w.workflowFile).toBe('.claude/workflows/feature-flow.yaml');
    expect(w.lastPassed).toBe('03');
    expect(w.next).toEqual({ number: '04', agent: 'developer', name: 'Implementation' });
    expect(w.interrupted).toEqual(['05']);
    expect([...ws.warnings, ...w.warnings]).toEqual([]);
  });

  it('status --json: eight cells, the failed step 04 blocks 06 and 07, the one half-product is in partials', async () => {
    const dir = copy();
    const j = await statusJson(dir);
    expect(j.cells.map((c) => `${c.step} ${c.status} ${c.blockedBy.map((b) => b.split('/')[1]).join(',')}`)).toEqual([
      's00 done ',
      's01 done ',
      's02 done ',
      's03 done ',
      's04 failed ',
      's05 partial ',
      's06 not_started s04',
      's07 not_started s04',
    ]);
    expect(j.counts).toMatchObject({ total: 8, done: 4, failed: 1, partial: 1, notStarted: 2, discrepancies: 0 });
    expect(j.next.map((n) => `${n.step} ${n.action} ${n.blocks}`)).toEqual(['s04 retry 2', 's05 run 0']);
    const reasoning = `.claude/context/history/reasoning/${ID}/05-technical-writer.json`;
    expect(j.partials.map((p) => `${p.step} ${p.path}`)).toEqual([`s05 ${reasoning}`]);
    // Its size is the reasoning file's, the half-product, not the absent gate's 0.
    expect(j.partials[0]).toMatchObject({ bytes: statSync(join(dir, reasoning)).size, chars: readFileSync(join(dir, reasoning), 'utf8').length });
    expect(j.warnings).toEqual([]);
  });

  it.each([
    ['step-N', (n: number) => `step-${n}`],
    ['N', (n: number) => String(n)],
    ['step_N', (n: number) => `step_${n}`],
    ['sN', (n: number) => `s${n}`],
    ['Step N', (n: number) => `Step ${n}`],
  ])('phase-plan tasks with ids shaped %s fold into their workflow step', async (_shape, name) => {
    const dir = copy();
    renameTasks(dir, name);
    const w = (await scanGateWorkspace(dir)).workflows[0];
    expect(w.steps.map((s) => `${s.number} ${s.status} ${s.planStatus}`)).toEqual(['00 done completed', '01 done completed', '02 done completed', '03 done completed', '04 failed failed', '05 partial in_progress', '06 not_started pending', '07 not_started pending']);
    expect(w.warnings).toEqual([]);
  });

  it('named task ids fold into the workflow step with that id', async () => {
    const dir = copy();
    const yaml = join(dir, '.claude/workflows/feature-flow.yaml');
    const names = ['plan', 'analyse', 'design', 'test_design', 'build', 'document', 'review', 'signoff'];
    writeFileSync(yaml, readFileSync(yaml, 'utf8').replace(/- step: (\d+)\n/g, (_m, n: string) => `- step: ${n}\n    id: ${names[Number(n)]}\n`));
    renameTasks(dir, (n) => names[n]);
    const w = (await scanGateWorkspace(dir)).workflows[0];
    expect(w.steps.map((s) => `${s.number} ${s.planStatus}`)).toEqual(['00 completed', '01 completed', '02 completed', '03 completed', '04 failed', '05 in_progress', '06 pending', '07 pending']);
    expect(w.warnings).toEqual([]);
  });

  it('a workflow file found by its gate files when the plan does not name it', async () => {
    const dir = copy();
    const plan = join(dir, ARTIFACTS, `plan-${ID}.json`);
    const p = JSON.parse(readFileSync(plan, 'utf8'));
    delete p.workflow;
    writeFileSync(plan, JSON.stringify(p));
    const w = (await scanGateWorkspace(dir)).workflows[0];
    expect(w.workflowFile).toBe('.claude/workflows/feature-flow.yaml');
    expect(w.steps.map((s) => `${s.number} [${s.dependencies.join(',')}]`)).toEqual(STEPS.map((s) => `${s.split(' ')[0]} ${s.split(' ').at(-1)}`));
  });

  it('among several workflow files: the one the plan names; when it names none and two fit, none is guessed, and a warning says what to do', async () => {
    const dir = copy();
    const flows = join(dir, '.claude/workflows');
    // A second flow with the same steps but other inputs (a real .claude/workflows/ holds many).
    writeFileSync(join(flows, 'other-flow.yaml'), readFileSync(join(flows, 'feature-flow.yaml'), 'utf8').replace(/\(from step \d+\)/g, '(from step 0)'));
    let w = (await scanGateWorkspace(dir)).workflows[0];
    expect(w.workflowFile).toBe('.claude/workflows/feature-flow.yaml');
    expect(w.warnings).toEqual([]);
    const plan = join(dir, ARTIFACTS, `plan-${ID}.json`);
    const p = JSON.parse(readFileSync(plan, 'utf8'));
    delete p.workflow;
    writeFileSync(plan, JSON.stringify(p));
    w = (await scanGateWorkspace(dir)).workflows[0];
    expect(w.workflowFile).toBeNull();
    expect(w.warnings.map((x) => x.message)).toEqual([expect.stringMatching(/^which workflow file run .* follows is not known .*write the workflow's name in the plan's "workflow" field$/)]);
    // The plan's own dependencies stand in (phase-plan tasks folded, step-N resolved).
    expect(w.steps.map((s) => `${s.number} [${s.dependencies.join(',')}]`)).toEqual(['00 []', '01 [00]', '02 [00,01]', '03 [01]', '04 [02]', '05 [02,03]', '06 [04]', '07 [04,06]']);
  });

  it('without the workflow file, the plan\'s step-N tasks still fold into eight steps (no 1.1…1.6)', async () => {
    const dir = copy();
    rmSync(join(dir, '.claude/workflows'), { recursive: true });
    const s = await loadWorkspace(dir);
    expect(s.pipeline.steps.map((x) => x.id)).toEqual(['s00', 's01', 's02', 's03', 's04', 's05', 's06', 's07']);
    expect(s.discrepancies).toEqual([]);
  });

  it('live: an edit of the workflow file changes the dependencies on screen (it is watched)', async () => {
    const dir = copy();
    const live = await createLiveWorkspace(dir, { watch: true });
    try {
      const blockers = () => live.state.cells.find((c) => c.step === 's05')!.blockedBy;
      expect(blockers()).toEqual([]);
      const yaml = join(dir, '.claude/workflows/feature-flow.yaml');
      writeFileSync(yaml, readFileSync(yaml, 'utf8').replace('      - test-plan-{{workflow_id}}.json (from step 3)\n    outputs:\n      - docs', '      - test-plan-{{workflow_id}}.json (from step 3)\n      - dev-manifest.json (from step 4)\n    outputs:\n      - docs'));
      await live.settled();
      expect(blockers()).toEqual([`${ID}/s04`]);
    } finally {
      await live.close();
    }
  });

  it('a gate path in the workflow file is used only inside the run\'s gates folder', async () => {
    const dir = copy();
    const yaml = join(dir, '.claude/workflows/feature-flow.yaml');
    writeFileSync(yaml, readFileSync(yaml, 'utf8').replace('gates/{{workflow_id}}/06-code-reviewer.json', 'gates/{{workflow_id}}/../../../../outside.json').replace('gates/{{workflow_id}}/07-qa.json', 'gates/{{workflow_id}}/07-qa-signoff.json'));
    const w = (await scanGateWorkspace(dir)).workflows[0];
    expect(w.steps.find((s) => s.number === '06')!.gatePath).toBeUndefined();
    expect(w.steps.find((s) => s.number === '07')!.gatePath).toBe(`.claude/context/history/gates/${ID}/07-qa-signoff.json`);
    const s = await loadWorkspace(dir);
    expect(s.cells.find((c) => c.step === 's06')!.path).toBe(`.claude/context/history/gates/${ID}/06-code-reviewer.json`);
  });

  it('taskStep: step shapes and named ids, never a number inside another id', () => {
    const named = new Map([['build', '4']]);
    expect(['step-4', 'step_4', 'Step 4', 's4', '4', '04', 'step-04.5', 'build', 'BUILD'].map((x) => taskStep(x, named))).toEqual(['4', '4', '4', '4', '4', '4', '4.5', '4', '4']);
    expect(['task-1-2', 'P1-T2', 'phase-1', 'step-4a', 'deploy', null].map((x) => taskStep(x, named))).toEqual([null, null, null, null, null, null]);
  });

  it('parseWorkflowFile: dependencies from "(from step N)" inputs, optional inputs wait on nothing, bad YAML says so', () => {
    const warnings: { source: string; message: string }[] = [];
    const def = parseWorkflowFile(
      ['steps:', '  - step: 1', '    agent: dev', '  - step: 1.5', '    agent: sec', '    inputs: ["a.json (from step 1)"]', '  - step: 2', '    agent: qa', '    inputs: ["b.json (from step 1.5, optional)", "a.json (from step 1)"]', '    depends_on: [step-0]'].join('\n'),
      '.claude/workflows/x.yaml',
      warnings,
    );
    expect(def!.steps.map((s) => `${s.key}:${s.dependencies.join(',')}`)).toEqual(['1:', '1.5:1', '2:0,1']);
    expect(parseWorkflowFile('steps: [\n', '.claude/workflows/bad.yaml', warnings)).toBeNull();
    expect(warnings.map((w) => w.source)).toEqual(['.claude/workflows/bad.yaml']);
    expect(warnings[0].message).toMatch(/not valid YAML .*fix the file/);
  });
});
