import { describe, expect, it } from 'vitest';
import type { AttemptClass } from '../../../../src/run/policy/classify.js';
import { classifyOutcome } from '../../../../src/run/policy/classify.js';
import type { AttemptRecord } from '../../../../src/run/policy/policy.js';
import { nextMove, type MoveInput } from '../../../../src/run/attempt/cell-move.js';
import { afterOom, attemptResources, attemptResourcesWords, journalledResourcesWords, journalResources, ladderSteps, memoryFor } from '../../../../src/run/policy/memory-ladder.js';
import type { Resources } from '../../../../src/pipeline/resources.js';
import type { ProcessOutcome } from '../../../../src/run/types.js';

// The OOM ladder (issue 22 item 5), decided in one place: the attempt's memory from the
// cell's OOM kills so far (the journal's attempts, so a restart climbs on), and the move after
// an OOM kill: one step up, or the top reached and an escalation that says so.

const rec = (attempt: number, cls: AttemptClass): AttemptRecord => ({ attempt, class: cls, cmdFp: 'same', errFp: 'same', keywords: ['heap', 'out', 'memory'], at: attempt });
const LADDER: Resources = { cpus: 2, ladder: { steps: [4096, 8192, 16384] } };
const input = (history: AttemptRecord[], resources: Resources | undefined): MoveInput => ({
  cls: history[history.length - 1]!.class,
  memoryLoss: null,
  history,
  limits: { caps: {}, backoffBaseMs: 1000, backoffMaxMs: 60_000 },
  rand: () => 0.5,
  retryDelayMs: null,
  retryStop: null,
  resources,
});

describe('the memory ladder', () => {
  it('steps: a list, or memory × factor up to the cap', () => {
    expect(ladderSteps(LADDER)).toEqual([4096, 8192, 16384]);
    expect(ladderSteps({ memoryMiB: 3000, ladder: { factor: 2, maxMiB: 16384 } })).toEqual([3000, 6000, 12000, 16384]);
    expect(ladderSteps({ memoryMiB: 4096 })).toBeNull();
  });

  it("each OOM kill since the last success moves the next attempt one step up; a success starts again at the bottom", () => {
    expect(memoryFor(LADDER, 0)).toEqual({ memoryMiB: 4096, step: { at: 1, of: 3 } });
    expect(attemptResources({ cpus: 2 }, LADDER, [rec(1, 'OOM_KILLED')])).toEqual({ cpus: 2, memoryMiB: 8192, ladderStep: { at: 2, of: 3 } });
    expect(attemptResources(undefined, LADDER, [rec(1, 'OOM_KILLED'), rec(2, 'UNKNOWN'), rec(3, 'OOM_KILLED')]).memoryMiB).toBe(16384);
    expect(attemptResources(undefined, LADDER, [rec(1, 'OOM_KILLED'), rec(2, 'SUCCESS')]).memoryMiB).toBe(4096);
    expect(journalResources(attemptResources(undefined, LADDER, [rec(1, 'OOM_KILLED')]))).toEqual({ memory: '8G', ladder: '2/3', cpus: 2 });
    expect(journalledResourcesWords({ memory: '8G', ladder: '2/3', cpus: 2 })).toBe('memory 8G (memory_ladder step 2 of 3), 2 cpus');
    const next = attemptResources(undefined, LADDER, [rec(1, 'OOM_KILLED')]);
    expect(attemptResourcesWords(next, 'slurm')).toBe('memory 8G (memory_ladder step 2 of 3), 2 cpus (slurm)');
    expect(attemptResourcesWords(next, 'local')).toBe('memory 8G (memory_ladder step 2 of 3), 2 cpus (local: memory as a data limit; cpus, gpus, partition, account not applied here)');
  });

  it('an OOM kill climbs past the class cap and the loop detector (the command changed), and escalates at the top', () => {
    const h1 = [rec(1, 'OOM_KILLED')];
    expect(nextMove(input(h1, LADDER))).toMatchObject({ kind: 'retry', class: 'OOM_KILLED', attempt: 2, maxAttempts: 3, reason: expect.stringContaining('OOM_KILLED at 4G: the next attempt gets 8G (memory_ladder step 2 of 3)') });
    const h2 = [...h1, rec(2, 'OOM_KILLED')];
    expect(nextMove(input(h2, LADDER))).toMatchObject({ kind: 'retry', attempt: 3, reason: expect.stringContaining('gets 16G') });
    const h3 = [...h2, rec(3, 'OOM_KILLED')];
    const top = nextMove(input(h3, LADDER));
    expect(top).toMatchObject({ kind: 'stop', reason: { kind: 'escalated', class: 'OOM_KILLED' } });
    expect(JSON.stringify(top)).toContain('OOM_KILLED at 16G, the top of memory_ladder (4G → 8G → 16G)');
    expect(afterOom(LADDER, 3)?.kind).toBe('top');
  });

  it('without a ladder the class cap decides, as before (2 attempts)', () => {
    expect(nextMove(input([rec(1, 'OOM_KILLED')], { memoryMiB: 4096 }))).toMatchObject({ kind: 'retry' });
    expect(nextMove(input([rec(1, 'OOM_KILLED'), rec(2, 'OOM_KILLED')], undefined))).toMatchObject({ kind: 'stop', reason: { kind: 'escalated', class: 'OOM_KILLED' } });
  });

  it('an allocation refused under the limit, or exit 137 with "Killed", is OOM_KILLED', () => {
    const o = (tail: string[], exitCode: number | null): ProcessOutcome => ({ exitCode, signal: null, tail, startedAt: 0, endedAt: 1 }) as ProcessOutcome;
    const ctx = { markerFound: false, rules: [] };
    expect(classifyOutcome(o(['RangeError: Array buffer allocation failed'], 1), ctx)).toBe('OOM_KILLED');
    expect(classifyOutcome(o(['FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory'], 134), ctx)).toBe('OOM_KILLED');
    expect(classifyOutcome(o(['sh: line 1: 4242 Killed  python train.py'], 137), ctx)).toBe('OOM_KILLED');
    expect(classifyOutcome(o(['Killed'], 1), ctx)).not.toBe('OOM_KILLED');
  });
});
