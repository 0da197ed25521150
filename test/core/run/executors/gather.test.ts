import { describe, expect, it } from 'vitest';
import { gatherer } from '../../../../src/run/executors/gather.js';

// The wait that lets jobs of one cluster share a sacct or scontrol call (slurm-account.ts,
// slurm-cli.ts): asked together, one call; per cluster; bounded in ids; a new window after.

describe('gatherer', () => {
  it('asks within the window share one call with every id; another cluster, a full call or a later ask is a call of its own', async () => {
    const calls: string[][] = [];
    const ask = gatherer(20, 3, async (ids: string[], env: Record<string, string>) => {
      calls.push([env.SLURM_CONF!, ...ids]);
      return ids.length;
    });
    const a = { SLURM_CONF: 'a.conf' };
    const b = { SLURM_CONF: 'b.conf' };
    const got = await Promise.all([ask('1', a), ask('2', a), ask('9', b), ask('3', a), ask('4', a)]);
    // 1, 2, 3 fill a's first call; 4 opens the next; b's is its own.
    expect(calls).toEqual([['a.conf', '1', '2', '3'], ['b.conf', '9'], ['a.conf', '4']]);
    expect(got).toEqual([3, 3, 1, 3, 1]);
    await ask('5', a);
    expect(calls.at(-1)).toEqual(['a.conf', '5']);
  });
});
