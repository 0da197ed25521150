import { afterEach, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir, writeFakeAgentWs } from '../../../helpers/workspace.js';
import { loadConfig } from '../../../../src/pipeline/config/config.js';
import { parseCheckpoint } from '../../../../src/checkpoint/parse.js';
import { claimsOf } from '../../../../src/state/derive.js';
import { readJournal } from '../../../../src/run/journal/journal.js';
import { openSupervisor, type Supervisor } from '../../../../src/run/supervisor/supervisor.js';

// A reset pressed the moment a cell shows as escalated: the journal already says needs_human
// while the cell's flight is still writing that claim into checkpoint.md. The reset waits for
// that write instead of refusing "in flight" (the marked-rows test met this under CI's load),
// and its own mark is the last one: the checkpoint ends reset, not "needs a human".

const open: Supervisor[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close({ cancel: true });
});

/** A supervisor on one cell that escalates at once (EACCES), polled on every turn of the loop until the journal says so. */
async function escalating(): Promise<{ root: string; s: Supervisor; run: Promise<unknown> }> {
  const root = writeFakeAgentWs(tempDir('checkroom-reset-esc-'), { units: ['ch01'], faults: { 'ch01/research': 'permission' }, speed: 40, idle: '10s', concurrency: 1 });
  const s = await openSupervisor({ root, config: await loadConfig(root) });
  open.push(s);
  const run = s.launch('ch01', 'research').catch(() => undefined);
  for (let i = 0; s.snapshot().ledger.cells['ch01/research']?.state !== 'needs_human'; i++) {
    if (i > 200_000) throw new Error('the cell never escalated');
    await new Promise((r) => setImmediate(r));
  }
  return { root, s, run };
}

describe('reset of a cell just escalated', () => {
  it('a relaunch with reset (enter on the escalated row) waits too, and launches attempt 1 anew', async () => {
    const { root, s, run } = await escalating();
    const again = await s.launch('ch01', 'research', { reset: true });
    await run;
    expect(again.outcome).toBe('escalated');
    const launches = (await readJournal(root)).events.filter((e) => e.type === 'launch');
    expect(launches.map((e) => (e as { attempt: number }).attempt)).toEqual([1, 1]);
  }, 60_000);

  it('waits for the escalation to finish writing; the checkpoint and the ledger end reset', async () => {
    const { root, s, run } = await escalating();
    const config = await loadConfig(root);
    await s.resetCell('ch01', 'research');
    await run;
    expect(s.snapshot().ledger.cells['ch01/research']!.state).not.toBe('needs_human');
    const claims = claimsOf(parseCheckpoint(readFileSync(join(root, 'checkpoint.md'), 'utf8'), config.pipeline));
    expect(claims.get('ch01/research')).not.toBe('needs_human');
    const kinds = (await readJournal(root)).events.flatMap((e) => (e.type === 'escalate' ? ['escalate'] : e.type === 'decision' && e.kind === 'reset_cell' ? ['reset'] : []));
    expect(kinds).toEqual(['escalate', 'reset']);
  }, 60_000);
});
