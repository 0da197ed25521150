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

describe('reset of a cell just escalated', () => {
  it('waits for the escalation to finish writing; the checkpoint and the ledger end reset', async () => {
    const root = writeFakeAgentWs(tempDir('checkroom-reset-esc-'), { units: ['ch01'], faults: { 'ch01/research': 'permission' }, speed: 40, idle: '10s', concurrency: 1 });
    const config = await loadConfig(root);
    const s = await openSupervisor({ root, config });
    open.push(s);
    const run = s.launch('ch01', 'research').catch(() => undefined);
    // Poll on every turn of the loop: the first look that sees the escalation resets at once.
    for (let i = 0; s.snapshot().ledger.cells['ch01/research']?.state !== 'needs_human'; i++) {
      if (i > 200_000) throw new Error('the cell never escalated');
      await new Promise((r) => setImmediate(r));
    }
    await s.resetCell('ch01', 'research');
    await run;
    expect(s.snapshot().ledger.cells['ch01/research']!.state).not.toBe('needs_human');
    const claims = claimsOf(parseCheckpoint(readFileSync(join(root, 'checkpoint.md'), 'utf8'), config.pipeline));
    expect(claims.get('ch01/research')).not.toBe('needs_human');
    const kinds = (await readJournal(root)).events.flatMap((e) => (e.type === 'escalate' ? ['escalate'] : e.type === 'decision' && e.kind === 'reset_cell' ? ['reset'] : []));
    expect(kinds).toEqual(['escalate', 'reset']);
  }, 60_000);
});
