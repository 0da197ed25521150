import { describe, expect, it } from 'vitest';
import { scanGateWorkspace } from '../../../src/gates/scan.js';
import { join } from 'node:path';
import { REPO } from '../../helpers/workspace.js';

// The second demo workspace (read-only): a gate-file workflow mid-flight.
const DEMO = join(REPO, 'demo-workspace', 'gates-workflow');

describe('demo-workspace/gates-workflow', () => {
  it('reads as a workflow mid-flight: failed developer gate, half-written devops gate, interrupted QA', async () => {
    const ws = await scanGateWorkspace(DEMO);
    expect(ws.workflows).toHaveLength(1);
    const w = ws.workflows[0];
    expect(w.id).toBe('1764400000-k3f9a2');
    expect(w.steps.map((s) => `${s.number} ${s.agent} ${s.status} ${s.gate?.shape ?? '-'}`)).toEqual([
      '00 planner done validation_status',
      '00.1 orchestrator done allowed',
      '01 analyst done valid',
      '02 architect done status',
      '03 ux-expert skipped skipped',
      '04 developer failed valid',
      '04.5 devops partial truncated',
      '05 qa partial -',
      '06 technical-writer not_started -',
    ]);
    expect(w.lastPassed).toBe('03');
    expect(w.next).toEqual({ number: '04', agent: 'developer', name: 'Implementation' });
    expect(w.failedValidations).toHaveLength(1);
    expect(w.failedValidations[0]).toMatchObject({ step: '04', class: 'VERIFICATION_FAILED' });
    expect(w.interrupted).toEqual(['05']);
    expect(w.missingArtifacts.map((a) => a.name)).toEqual(['dev-manifest']);
    expect(w.memory.map((m) => m.present)).toEqual([true, false, true]);
    const text = w.warnings.map((x) => `${x.source}: ${x.message}`).join('\n');
    expect(text).toMatch(/04\.5-devops\.json: gate is cut off mid-write/);
    expect(text).toMatch(/system-design has an absolute path from another machine/);
  });
});
