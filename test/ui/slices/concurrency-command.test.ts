import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/pipeline/config/config.js';
import { openSupervisor, type Supervisor } from '../../../src/run/supervisor/supervisor.js';
import { readJournal } from '../../../src/run/journal/journal.js';
import { parseConcurrencyArgs } from '../../../src/ui/agents/concurrency.js';
import { operatorOf } from '../../../src/ui/store/operator.js';
import { closeStores, openStore } from '../../helpers/store.js';
import { fakeAgentWorkspace } from '../../helpers/workspace.js';

// `:concurrency writer 4` (docs/scale-out.md, Arrays): the room's entry to the supervisor's one
// setConcurrency — journalled, folded back by a restart, shown in Health's slots. The Slurm
// side (a live array's throttle) is proven on a real cluster in slurm-arrays.test.ts.

const sups: Supervisor[] = [];
afterEach(async () => {
  await closeStores();
  for (const s of sups.splice(0)) await s.close({ cancel: true });
});

const openRoom = async (root: string) => {
  const config = await loadConfig(root);
  const sup = await openSupervisor({ root, config });
  sups.push(sup);
  return { ...(await openStore(root, { agents: { sup, config, flushMs: 10 } })), sup, config };
};

describe(':concurrency', () => {
  it('reads an agent and a number, or says what to type', () => {
    expect(parseConcurrencyArgs('writer 4', ['writer', 'reviewer'])).toEqual({ agent: 'writer', n: 4 });
    expect(parseConcurrencyArgs('4', ['writer'])).toEqual({ agent: 'writer', n: 4 });
    expect(parseConcurrencyArgs('4', ['writer', 'reviewer'])).toEqual({ error: 'type :concurrency <agent> <1-64> (agents: writer, reviewer)' });
    expect(parseConcurrencyArgs('ghost 4', ['writer'])).toEqual({ error: "no agent 'ghost' in checkroom.yaml (agents: writer)" });
    expect(parseConcurrencyArgs('writer 0', ['writer'])).toEqual({ error: "concurrency is a whole number from 1 to 64, not '0'" });
    expect(parseConcurrencyArgs('writer 2.5', ['writer'])).toMatchObject({ error: expect.stringMatching(/whole number/) });
  });

  it('sets it through the supervisor: journalled, in Health’s slots, and folded back over checkroom.yaml by the next start', async () => {
    const root = fakeAgentWorkspace('checkroom-concurrency-');
    const r = await openRoom(root);
    const before = r.config.agents.writer!.concurrency;
    await r.press(':', 'concurrency writer 5', 'enter');
    await r.s().idle();
    expect(r.s().message).toEqual({ text: "writer: concurrency 5 (journalled; a live Slurm array's throttle follows)", tone: 'ok' });
    expect(r.config.agents.writer!.concurrency).toBe(5);
    expect(operatorOf(r.s()).breakers.find((b) => b.agent === 'writer')?.slots).toMatchObject({ limit: 5 });
    expect((await readJournal(root)).events.filter((e) => e.type === 'concurrency')).toMatchObject([{ agent: 'writer', concurrency: 5 }]);
    await r.press(':', 'concurrency writer 99', 'enter');
    expect(r.s().message?.tone).toBe('warn');
    await r.sup.close();
    sups.splice(0);
    // A restart: checkroom.yaml still says `before`, the journal says 5.
    const again = await loadConfig(root);
    expect(again.agents.writer!.concurrency).toBe(before);
    sups.push(await openSupervisor({ root, config: again }));
    expect(again.agents.writer!.concurrency).toBe(5);
  });
});
