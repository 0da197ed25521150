import { afterEach, describe, expect, it } from 'vitest';
import { readJournal } from '../../../src/run/journal/journal.js';
import { loadConfig } from '../../../src/pipeline/config/config.js';
import { openSupervisor } from '../../../src/run/supervisor/supervisor.js';
import { closeStores, openStore } from '../../helpers/store.js';
import { copyDemo } from '../../helpers/workspace.js';

// :redo in a control room that drives (docs/redo.md): the record goes through the
// supervisor's journal, and its queue is autopilot's order at once (no toggle needed).

afterEach(closeStores);

const CH03 = ['ch03/draft', 'ch03/r1', 'ch03/r2', 'ch03/r3', 'ch03/review', 'ch03/panel', 'ch03/memory', 'ch03/final', 'ch03/html'];

describe('store: redo from here with a supervisor', () => {
  it("with a supervisor: one journal record through the driver's journal, and the queue is autopilot's order at once", async () => {
    const root = copyDemo();
    const config = await loadConfig(root);
    const sup = await openSupervisor({ root, config });
    const preferred: string[][] = [];
    const spy = { ...sup, prefer: (cells: readonly { unit: string; step: string }[]) => (preferred.push(cells.map((c) => `${c.unit}/${c.step}`)), sup.prefer(cells)) };
    try {
      const r = await openStore(root, { agents: { sup: spy, config, flushMs: 10 } });
      await r.press(':', 'redo ch03/draft', 'enter', 'y');
      expect(preferred.at(-1)).toEqual(CH03);
      expect(sup.snapshot().ledger.triage.redoQueue.map((q) => `${q.unit}/${q.step}`)).toEqual(CH03);
      expect((await readJournal(root)).events.filter((e) => e.type === 'redo_applied')).toHaveLength(1);
    } finally {
      await closeStores();
      await sup.close();
    }
  });

});
