import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { classifyGate, compareSteps, normaliseGate, stepKey } from '../../../src/gates/gate-file.js';
import { looksTruncated } from '../../../src/gates/read-json.js';
import { scanGateWorkspace } from '../../../src/gates/scan.js';

const ID = '1735123456-abc123';
const GATES = `.claude/context/history/gates/${ID}`;
const ART = '.claude/context/artifacts';
const REASON = `.claude/context/history/reasoning/${ID}`;

let root: string;
const put = async (rel: string, content: unknown) => {
  await mkdir(dirname(join(root, rel)), { recursive: true });
  await writeFile(join(root, rel), typeof content === 'string' ? content : JSON.stringify(content, null, 2));
};
const scanOne = async () => {
  const ws = await scanGateWorkspace(root);
  expect(ws.workflows.map((w) => w.id)).toEqual([ID]);
  return ws.workflows[0];
};
const step = (n: string, agent: string, deps: string[] = [], status = 'pending') => ({ step_number: n, name: `Step ${n}`, agent, dependencies: deps, status });

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'checkroom-gates-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('gate shapes', () => {
  it('reads every real-world shape and says which one it read', () => {
    const n = (v: unknown) => normaliseGate(v, 'f.json', 'a');
    expect(n({ validation_status: 'pass' })).toMatchObject({ shape: 'validation_status', passed: true, skipped: false });
    expect(n({ validation_status: 'fail', errors: ['x'] })).toMatchObject({ shape: 'validation_status', passed: false, errors: ['x'] });
    expect(n({ valid: true, errors: [], timestamp: 't', input_path: '/elsewhere/x.json', validated_data: { a: 1 } })).toMatchObject({ shape: 'valid', passed: true, timestamp: 't' });
    expect(n({ valid: false, errors: ['/name: must be string (type: string)'] })).toMatchObject({ shape: 'valid', passed: false, errors: ['/name: must be string (type: string)'] });
    expect(n({ allowed: true })).toMatchObject({ shape: 'allowed', passed: true });
    expect(n({ allowed: false, reason: 'budget exceeded' })).toMatchObject({ shape: 'allowed', passed: false, errors: ['budget exceeded'] });
    for (const [status, passed] of [['pass', true], ['fixed', true], ['fail', false], ['fail_after_fix', false]] as const) {
      expect(n({ status })).toMatchObject({ shape: 'status', passed });
    }
    expect(n({ valid: true, skipped: true, reason: 'not needed' })).toMatchObject({ shape: 'skipped', passed: true, skipped: true, errors: [] });
    expect(n({ hello: 'world' })).toBeNull();
    expect(n([1, 2])).toBeNull();
  });

  it('turns object errors into readable strings and escapes control characters', () => {
    const g = normaliseGate({ valid: false, errors: [{ instancePath: '/steps/0', message: 'must have required property agent' }, 'bad \u001b]0;pwn\u0007'] }, 'f', 'a')!;
    expect(g.errors).toEqual(['/steps/0: must have required property agent', 'bad \\e]0;pwn\\a']);
  });

  it('classifies failed gates by their errors (DOMAIN.md section 8)', () => {
    const c = (errors: string[]) => classifyGate({ file: 'f', agent: 'a', passed: false, skipped: false, shape: 'valid', errors, timestamp: null });
    expect(c(['/coverage: must be >= 80'])).toBe('VERIFICATION_FAILED');
    expect(c(['SyntaxError: Unexpected token } in src/a.ts'])).toBe('BROKEN_BUILD');
    expect(c(['Error: Cannot find module "./auth"'])).toBe('BROKEN_BUILD');
    expect(c(['context length exceeded while reading the spec'])).toBe('CONTEXT_EXHAUSTED');
    expect(c([])).toBe('UNKNOWN');
  });

  it('tells a cut-off file from other malformed JSON', () => {
    expect(looksTruncated('{"valid": true, "errors": [')).toBe(true);
    expect(looksTruncated('{"valid": true, "note": "half a str')).toBe(true);
    expect(looksTruncated('')).toBe(true);
    expect(looksTruncated('{"valid": tru }')).toBe(false);
  });
});

describe('step numbers', () => {
  it('normalises numbers, strings and step-N names, and orders decimals numerically', () => {
    expect(['00', '00.1', 4.5, '04', 'step-0.1', '10'].map(stepKey)).toEqual(['0', '0.1', '4.5', '4', '0.1', '10']);
    expect(['10', '4.5', '0.1', '4', '0', '1'].sort(compareSteps)).toEqual(['0', '0.1', '1', '4', '4.5', '10']);
  });
});

describe('scanGateWorkspace', () => {
  it('orders decimal gate files numerically and finds the last passed and the next step', async () => {
    await put(`${ART}/plan-${ID}.json`, {
      plan_id: `plan-${ID}`,
      name: 'Ship it',
      status: 'in_progress',
      steps: [step('0', 'planner'), step('0.1', 'orchestrator', ['step-0']), step('1', 'analyst', ['step-0.1']), step('4', 'developer', ['step-1']), step('4.5', 'devops', ['step-1']), step('10', 'qa', ['step-4', 'step-4.5'])],
    });
    await put(`${GATES}/10-qa.json`, { status: 'fail' });
    await put(`${GATES}/04.5-devops.json`, { status: 'pass' });
    await put(`${GATES}/00-planner.json`, { validation_status: 'pass' });
    await put(`${GATES}/00.1-orchestrator.json`, { allowed: true });
    await put(`${GATES}/01-analyst.json`, { valid: true, errors: [] });
    const w = await scanOne();
    expect(w.steps.map((s) => `${s.number}:${s.status}`)).toEqual(['00:done', '00.1:done', '01:done', '04:not_started', '04.5:done', '10:failed']);
    expect(w.lastPassed).toBe('04.5');
    // Step 4 is before the last passed one; the first step after 04.5 is 10, but 4 has not passed.
    expect(w.next).toBeNull();
    expect(w.name).toBe('Ship it');
    expect(w.planStatus).toBe('in_progress');
  });

  it('picks the next plan step after the last passed whose dependencies passed, retrying a failed one', async () => {
    await put(`${ART}/plan-${ID}.json`, { name: 'n', steps: [step('0', 'planner'), step('1', 'architect', ['step-0']), step('2', 'developer', ['step-1']), step('3', 'qa', ['step-2'])] });
    await put(`${GATES}/00-planner.json`, { validation_status: 'pass' });
    await put(`${GATES}/01-architect.json`, { valid: true, skipped: true });
    await put(`${GATES}/02-developer.json`, { valid: false, errors: ['/tests/failed: must be equal to 0'] });
    const w = await scanOne();
    expect(w.steps.map((s) => s.status)).toEqual(['done', 'skipped', 'failed', 'not_started']);
    expect(w.lastPassed).toBe('01'); // a skipped step is settled
    expect(w.next).toEqual({ number: '02', agent: 'developer', name: 'Step 2' });
    expect(w.failedValidations).toEqual([{ step: '02', errors: ['/tests/failed: must be equal to 0'], class: 'VERIFICATION_FAILED' }]);
    expect(w.steps[2].failureClass).toBe('VERIFICATION_FAILED');
  });

  it('treats a gate cut off mid-write as a partial step with a warning naming the file', async () => {
    await put(`${ART}/plan-${ID}.json`, { steps: [step('0', 'planner'), step('1', 'analyst', ['step-0'], 'completed')] });
    await put(`${GATES}/00-planner.json`, { validation_status: 'pass' });
    await put(`${GATES}/01-analyst.json`, '{\n  "valid": true,\n  "errors": [],\n  "validated_data": {"title": "Requirem');
    await put(`${GATES}/02-x.json`, '{"valid": tru }');
    const w = await scanOne();
    expect(w.steps.map((s) => [s.number, s.status, s.gate?.shape])).toEqual([
      ['00', 'done', 'validation_status'],
      ['01', 'partial', 'truncated'],
      ['02', 'partial', 'malformed'],
    ]);
    expect(w.lastPassed).toBe('00');
    expect(w.next?.number).toBe('01');
    const text = w.warnings.map((x) => `${x.source}: ${x.message}`).join('\n');
    expect(text).toContain(`${GATES}/01-analyst.json: gate is cut off mid-write`);
    expect(text).toContain(`${GATES}/02-x.json: gate cannot be read`);
    expect(text).toMatch(/plan says step 01 \(analyst\) is completed, but its gate is partial/);
    expect(w.failedValidations).toEqual([]);
  });

  it('checks registry artifacts on disk, as a map and as an array, including absolute paths from elsewhere', async () => {
    await put(`${ART}/plan-${ID}.json`, { steps: [step('0', 'planner')] });
    await put(`${ART}/spec.json`, {});
    await put('docs/design.md', '# design');
    await put(`${ART}/registry-${ID}.json`, {
      workflow_id: ID,
      artifacts: {
        spec: { name: 'spec', step: 0, agent: 'planner', path: `${ART}/spec.json`, metadata: { validation_status: 'pass' } },
        design: { name: 'design', path: 'docs/design.md' },
        tests: { name: 'tests', path: `${ART}/tests.json` },
        moved: { name: 'moved', path: `/home/someone/else/${ART}/spec.json` },
        gone: { name: 'gone', path: '/home/someone/else/gone.json' },
      },
    });
    const map = await scanOne();
    expect(map.missingArtifacts).toEqual([
      { name: 'tests', path: `${ART}/tests.json` },
      { name: 'gone', path: '/home/someone/else/gone.json' },
    ]);
    expect(map.warnings.map((w) => w.message).join('\n')).toMatch(/moved has an absolute path from another machine.*found by name/);

    await put(`${ART}/registry-${ID}.json`, { workflow_id: ID, artifacts: [{ name: 'spec', path: `${ART}/spec.json` }, { name: 'report', path: `${ART}/report.md` }] });
    expect((await scanOne()).missingArtifacts).toEqual([{ name: 'report', path: `${ART}/report.md` }]);
  });

  it('reads reasoning in both shapes and reports a step with no final decision and no gate as interrupted', async () => {
    await put(`${ART}/plan-${ID}.json`, { steps: [step('0', 'planner'), step('1', 'architect', ['step-0']), step('2', 'developer', ['step-1']), step('3', 'qa', ['step-1'])] });
    await put(`${GATES}/00-planner.json`, { validation_status: 'pass' });
    await put(`${REASON}/00-planner.json`, { agent: 'planner', step: 0, timestamp: 't', decisions: [{ decision: 'd' }] });
    await put(`${REASON}/01-architect.json`, { assumptions: ['a'], decision_criteria: [], tradeoffs: [], open_questions: ['q'], final_decision: 'use PKCE' });
    await put(`${REASON}/02-developer.json`, { assumptions: ['a'], decision_criteria: ['c'], tradeoffs: [], open_questions: [], final_decision: null });
    await put(`${REASON}/03-qa.json`, { agent: 'qa', step: 3, timestamp: 't', decisions: [] });
    const w = await scanOne();
    // 01 decided but has no gate: not started (not proven), not interrupted.
    expect(w.steps.map((s) => s.status)).toEqual(['done', 'not_started', 'partial', 'partial']);
    expect(w.interrupted).toEqual(['02', '03']);
  });

  it('reads hierarchical plans with camelCase phase plans', async () => {
    await put(`${ART}/plan-${ID}.json`, {
      plan_id: `plan-${ID}`,
      name: 'Big one',
      phases: [{ phase: 1, phase_plan_path: `${ART}/plan-${ID}-phase-1.json` }, { phase: 2, phase_plan_path: `/other/machine/${ART}/plan-${ID}-phase-2.json` }],
    });
    await put(`${ART}/plan-${ID}-phase-1.json`, { metadata: { phaseId: 1 }, tasks: [{ taskId: 'P1-T1', name: 'Scaffold', assignedAgent: 'developer', dependencies: [] }, { taskId: 'P1-T2', name: 'Schema', assignedAgent: 'database-architect', dependencies: ['P1-T1'] }] });
    await put(`${ART}/plan-${ID}-phase-2.json`, { metadata: { phaseId: 2 }, tasks: [{ taskId: '2.1', name: 'API', assignedAgent: 'developer', dependencies: ['P1-T2'] }] });
    await put(`${GATES}/01.1-developer.json`, { valid: true });
    const w = await scanOne();
    expect(w.steps.map((s) => [s.number, s.agent, s.name, s.status])).toEqual([
      ['01.1', 'developer', 'Scaffold', 'done'],
      ['01.2', 'database-architect', 'Schema', 'not_started'],
      ['02.1', 'developer', 'API', 'not_started'],
    ]);
    expect(w.steps[2].dependencies).toEqual(['01.2']);
    expect(w.next).toEqual({ number: '01.2', agent: 'database-architect', name: 'Schema' });
    expect(w.warnings.map((x) => x.message).join('\n')).toMatch(/phase plan path .* is from another machine/);
  });

  it('reports memory files, missing plan and gates the plan does not list; never throws on an empty workspace', async () => {
    expect((await scanGateWorkspace(root)).warnings[0].message).toMatch(/no gate-file workflow found/);
    await put('.claude/context/memory/learnings.md', 'abc');
    await put(`${GATES}/00-planner.json`, { validation_status: 'pass' });
    await put(`${GATES}/notes.json`, {});
    const w = await scanOne();
    expect(w.memory).toEqual([
      { file: '.claude/context/memory/learnings.md', present: true, bytes: 3 },
      { file: '.claude/context/memory/issues.md', present: false, bytes: 0 },
      { file: '.claude/context/memory/decisions.md', present: false, bytes: 0 },
    ]);
    expect(w.steps).toMatchObject([{ number: '00', agent: 'planner', status: 'done' }]);
    const text = w.warnings.map((x) => x.message).join('\n');
    expect(text).toMatch(/no plan and no workflow file found/);
    expect(text).toMatch(/not \{step\}-\{agent\}\.json/);
    expect(text).toMatch(/no artifact registry/);
  });

  it('lists several workflows newest first', async () => {
    await put(`.claude/context/history/gates/1700000000-old/00-planner.json`, { validation_status: 'pass' });
    await put(`${ART}/plan-1800000000-new.json`, { steps: [] });
    const ws = await scanGateWorkspace(root);
    expect(ws.workflows.map((w) => w.id)).toEqual(['1800000000-new', '1700000000-old']);
  });
});
