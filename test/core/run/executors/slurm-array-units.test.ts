import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, parseConfig } from '../../../../src/pipeline/config/config.js';
import { DEFAULT_BREAKER, DEFAULT_LIMITS } from '../../../../src/pipeline/defaults.js';
import { expandArrayId, parseSqueue } from '../../../../src/run/executors/slurm-state.js';
import { arraySbatchArgs, parseArrayComment } from '../../../../src/run/executors/slurm-array.js';
import { manifestLine, parseManifest, readManifest, writeManifest, type ManifestTask } from '../../../../src/run/executors/slurm-manifest.js';
import { inFlightCap } from '../../../../src/run/executors/registry.js';
import { pickLaunches } from '../../../../src/run/supervisor/autopilot.js';
import { applyConcurrency } from '../../../../src/run/supervisor/concurrency.js';
import { replayJournal } from '../../../../src/run/journal/ledger-fold.js';
import type { JournalEvent } from '../../../../src/run/journal/journal.js';
import type { ExecutorSpec } from '../../../../src/run/executors/types.js';
import type { NextStep } from '../../../../src/types.js';
import { tempDir } from '../../../helpers/workspace.js';

// The pure parts of Slurm job arrays (docs/scale-out.md, Arrays): squeue's array lines, the
// task manifest, the array's sbatch arguments, the option in checkroom.yaml, the one answer
// of how many cells may be in flight, and the operator's concurrency in the journal's fold.

const yaml = (slurm: string, concurrency = 2) => `executor: slurm
slurm: ${slurm}
replace: true
phases: [{ id: 1, name: Drafts }]
steps: [{ id: draft, agent: writer, path: 'drafts/{unit}.md', marker: D_DONE, phase: 1 }]
units: { pattern: 'u\\d', list: [u1, u2, u3, u4, u5] }
agents:
  writer:
    command: [node, w.mjs, '{unit}']
    concurrency: ${concurrency}
`;

describe('squeue lines of job arrays', () => {
  it('a pending range is one row per task, throttle or not; running tasks and plain jobs stay as they are', () => {
    expect(expandArrayId('123_[5-8%2]')).toEqual(['123_5', '123_6', '123_7', '123_8']);
    expect(expandArrayId('123_[1,3,7-9]')).toEqual(['123_1', '123_3', '123_7', '123_8', '123_9']);
    expect(expandArrayId('123_4')).toEqual(['123_4']);
    expect(expandArrayId('77')).toEqual(['77']);
    expect(expandArrayId('123_[x]')).toBeNull();
    const rows = parseSqueue('123_[2-4%2]|PENDING|JobArrayTaskLimit|2026-12-02T08:00:00|N/A|(null)|checkroom-a|checkroom ws=abc array=draft-1\n123_0|RUNNING|None|2026-12-02T08:00:00|2026-12-02T08:00:01|n2|checkroom-a|checkroom ws=abc array=draft-1\n9|RUNNING|None|||n1|x|y\n');
    expect(rows.map((r) => `${r.id} ${r.state} ${r.reason}`)).toEqual(['123_2 PENDING JobArrayTaskLimit', '123_3 PENDING JobArrayTaskLimit', '123_4 PENDING JobArrayTaskLimit', '123_0 RUNNING None', '9 RUNNING None']);
    expect(parseArrayComment(rows[0]!.comment)).toEqual({ ws: 'abc', name: 'draft-1' });
    expect(parseArrayComment('checkroom ws=abc run=r1 cell=u1/draft')).toBeNull();
  });
});

describe('the task manifest', () => {
  const task = (i: number): ManifestTask => ({ runId: `u${i}-draft-a1-x`, unit: `u${i}`, step: 'draft', logPath: `/w/.checkroom/runs/u${i}.log`, statusPath: `/w/.checkroom/runs/u${i}.exit`, cwd: '/w', argv: ['node', '', 'a b\nc', '$(id) `id` *', 'é'] });

  it('a line per task, every field x+base64: nothing a shell would parse, empty arguments kept, read back whole', () => {
    const line = manifestLine(task(1));
    expect(line).toMatch(/^(x[A-Za-z0-9+/=]* ?)+$/);
    expect(line).not.toMatch(/[$`*\n]/);
    expect(parseManifest([task(0), task(1)].map(manifestLine).join('\n') + '\n')).toEqual([task(0), task(1)]);
    expect(parseManifest('not a line\n')).toEqual([null]);
  });

  it('is written atomically inside the workspace, and a name with a path in it is never read', async () => {
    const root = tempDir();
    const { manifest, wrapper } = await writeManifest(root, 'draft-1', [task(0), task(1)]);
    expect(manifest).toBe(join(root, '.checkroom', 'slurm', 'arrays', 'draft-1.tasks'));
    expect(readFileSync(wrapper, 'utf8')).toMatch(/SLURM_ARRAY_TASK_ID:-\$JOB_COMPLETION_INDEX/);
    expect((await readManifest(root, 'draft-1'))?.[1]?.unit).toBe('u1');
    expect(await readManifest(root, '../../etc/passwd')).toBeNull();
    expect(await readManifest(root, 'gone')).toBeNull();
  });
});

describe('the array and its option', () => {
  it('slurm.arrays is off unless set; array_max bounds it; a wrong value is an error that says what is expected', () => {
    expect(parseConfig(yaml('{ poll: 1s }'), 'checkroom.yaml').agents.writer!.slurm).toMatchObject({ arrays: false, arrayMax: 1000 });
    expect(parseConfig(yaml('{ arrays: true, array_max: 200 }'), 'checkroom.yaml').agents.writer!.slurm).toMatchObject({ arrays: true, arrayMax: 200 });
    expect(() => parseConfig(yaml('{ arrays: yes please }'), 'checkroom.yaml')).toThrow(ConfigError);
    expect(() => parseConfig(yaml('{ arrays: true, array_max: 1 }'), 'checkroom.yaml')).toThrow(/array_max/);
  });

  it('sbatch --array=0-N%T with T the concurrency, one manifest, the workspace comment, no requeue', () => {
    const agent = parseConfig(yaml('{ arrays: true, partition: short, extra_args: [--qos=low] }', 3), 'checkroom.yaml').agents.writer!;
    const spec = { root: '/w', agent, timeoutMs: 90_000, graceMs: 5_000 } as ExecutorSpec;
    const args = arraySbatchArgs(spec, { name: 'draft-1', count: 5, throttle: agent.concurrency, wrapper: '/w/.checkroom/slurm/run-array.sh', manifest: '/w/.checkroom/slurm/arrays/draft-1.tasks' });
    expect(args[0]).toBe('--array=0-4%3');
    expect(args).toContain('--no-requeue');
    expect(args).toContain('--partition=short');
    expect(args).toContain('--qos=low');
    expect(args).toContain('--time=1:30');
    expect(args.find((a) => a.startsWith('--comment='))).toMatch(/^--comment=checkroom ws=[0-9a-f]{12} array=draft-1$/);
    expect(args.slice(-2)).toEqual(['/w/.checkroom/slurm/run-array.sh', '/w/.checkroom/slurm/arrays/draft-1.tasks']);
  });

  it('with arrays on, autopilot admits the ready step up to array_max, not `concurrency` cells: the array throttles them', () => {
    const plan = (n: number): NextStep[] => Array.from({ length: n }, (_, i) => ({ priority: 3, action: 'run', unit: `u${i + 1}`, step: 'draft', reason: 'ready' }) as NextStep);
    const ledger = replayJournal([], 0, { breaker: DEFAULT_BREAKER, limits: DEFAULT_LIMITS });
    const pick = (slurm: string) => {
      const config = parseConfig(yaml(slurm), 'checkroom.yaml');
      return pickLaunches({ plan: plan(5), ledger, config, inFlight: new Map(), budget: 100, redoHalfProducts: true, now: 0 }).launch.length;
    };
    expect(pick('{ arrays: false }')).toBe(2);
    expect(pick('{ arrays: true }')).toBe(5);
    expect(pick('{ arrays: true, array_max: 3 }')).toBe(3);
    expect(inFlightCap(parseConfig(yaml('{ arrays: true, array_max: 3 }'), 'checkroom.yaml').agents.writer!)).toBe(3);
  });
});

describe('the operator’s concurrency in the journal', () => {
  it('is folded by the ledger, the last one winning, and laid over checkroom.yaml’s on the resolved agents', () => {
    const ev = [
      { v: 1, type: 'concurrency', at: 1, agent: 'writer', concurrency: 5 },
      { v: 1, type: 'concurrency', at: 2, agent: 'writer', concurrency: 7 },
      { v: 1, type: 'concurrency', at: 3, agent: 'ghost', concurrency: 3 },
    ] as JournalEvent[];
    const ledger = replayJournal(ev, 10, { breaker: DEFAULT_BREAKER, limits: DEFAULT_LIMITS });
    expect(ledger.concurrency).toEqual({ writer: 7, ghost: 3 });
    const config = parseConfig(yaml('{ arrays: true }'), 'checkroom.yaml');
    applyConcurrency(config, ledger);
    expect(config.agents.writer!.concurrency).toBe(7);
    expect(config.agents.ghost).toBeUndefined();
  });
});
