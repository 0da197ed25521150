import { afterEach, describe, expect, it } from 'vitest';
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLiveWorkspace, type LiveWorkspace } from '../../../src/live/live-workspace.js';
import { readCheckpoint } from '../../../src/checkpoint/io.js';
import { writeFileAtomic } from '../../../src/fs/atomic-write.js';
import { loadConfig } from '../../../src/pipeline/config/config.js';
import { openSupervisor } from '../../../src/run/supervisor/supervisor.js';
import { createAppStore, disposeStore } from '../../../src/ui/store/store.js';
import { until } from '../../helpers/store.js';
import { tempDir, writeFiles, PHASE_1_2, summaries, prose, pathOf, fakeAgentWorkspace } from '../../helpers/workspace.js';


// Issue 9 item 4: one port between the store and the live workspace. A run that ends writes
// its output's marker and checkpoint.md's cell, and the agents feed touches both: each file
// is read once — on its watch event when a watch reports it, else for the touch.

const CHECKPOINT = [
  '# Book — checkpoint',
  '',
  '## Phase 3: writing — in progress',
  '### Batch 1',
  '| unit | research | draft |',
  '|------|----------|-------|',
  '| ch01 | ⏳ | — |',
  '',
].join('\n');

let live: LiveWorkspace | null = null;
afterEach(async () => {
  await live?.close();
  live = null;
});

async function openCounting(watch: boolean) {
  const root = tempDir('checkroom-live-port-');
  writeFiles(root, { ...PHASE_1_2, 'meta/chapter-summaries.md': summaries([]), 'checkpoint.md': CHECKPOINT, [pathOf('ch01', 'research')]: `# ch01\n\n${prose(400)}\n` });
  const reads: string[] = [];
  live = await createLiveWorkspace(root, { watch, readers: { checkpoint: (r, p, f) => (reads.push(f ?? 'checkpoint.md'), readCheckpoint(r, p, f)) } });
  return { root, reads, live };
}

/** What a run's end does on disk (src/run/attempt/launch-checkpoint.ts), then what the agents feed does. */
async function finishRun(root: string, l: LiveWorkspace): Promise<void> {
  const out = pathOf('ch01', 'research');
  appendFileSync(join(root, out), '\n<!-- RESEARCH_COMPLETE -->\n');
  await writeFileAtomic(join(root, 'checkpoint.md'), readFileSync(join(root, 'checkpoint.md'), 'utf8').replace('| ch01 | ⏳ |', '| ch01 | ✅ |'), [root]);
  // The supervisor journals the exit before it says 'done': the events may be applied by then.
  await l.settled();
  l.touch(['checkpoint.md', out]);
  await l.settled();
}

const research = (l: LiveWorkspace) => l.state.cells.find((c) => c.unit === 'ch01' && c.step === 'research');

describe('the live port: a finished run is read once', () => {
  it('watching: the checkpoint is read once for its event, not again for the touch', async () => {
    const { root, reads, live: l } = await openCounting(true);
    expect(l.watching.mode).toBe('watch');
    await finishRun(root, l);
    // A late event (the kernel queues the rename after the touch) may still be on its way.
    for (let i = 0; i < 5; i++) await l.settled();
    expect(reads).toEqual(['checkpoint.md']);
    expect(research(l)).toMatchObject({ status: 'done', checkpoint: 'done' });
  });

  it('not watching: the touch is what reads it, once', async () => {
    const { root, reads, live: l } = await openCounting(false);
    await finishRun(root, l);
    expect(reads).toEqual(['checkpoint.md']);
    expect(research(l)).toMatchObject({ status: 'done', checkpoint: 'done' });
  });

  it('the same running set again publishes nothing; a changed one publishes the unit running', async () => {
    const { live: l } = await openCounting(false);
    let published = 0;
    l.subscribe(() => published++);
    l.setRunning(new Set(['ch01/draft']));
    expect(published).toBe(1);
    expect(l.state.cells.find((c) => c.unit === 'ch01' && c.step === 'draft')?.status).toBe('running');
    l.setRunning(new Set(['ch01/draft']));
    expect(published).toBe(1);
    l.setRunning(new Set());
    expect(published).toBe(2);
    expect(l.state.cells.find((c) => c.unit === 'ch01' && c.step === 'draft')?.status).not.toBe('running');
  });
});

// The same through the whole path: a real supervisor runs the demo's fake agent, the store's
// agents feed touches what the run wrote, the live workspace watches as the control room's does.
describe('the live port: a real run through the store', () => {
  it('each version of checkpoint.md the run writes is read once, the touch at its end adds none', async () => {
    const root = fakeAgentWorkspace('checkroom-live-port-run-');
    const config = await loadConfig(root);
    const sup = await openSupervisor({ root, config });
    const reads: string[] = [];
    // What each read found for ch01 research: one read per version written.
    const seen: string[] = [];
    const l = await createLiveWorkspace(root, {
      watch: true,
      readers: {
        checkpoint: async (r, p, f) => {
          reads.push(f ?? 'checkpoint.md');
          const doc = await readCheckpoint(r, p, f);
          seen.push(String(doc?.batches.flatMap((b) => b.rows).find((x) => x.unit === 'ch01')?.claims.research ?? 'none'));
          return doc;
        },
      },
    });
    live = l;
    const store = createAppStore({ live: l, agents: { sup, config, flushMs: 10 } });
    try {
      await sup.launch('ch01', 'research');
      await until(() => research(l)?.status === 'done' && research(l)?.checkpoint === 'done', 'the cell done on disk and in checkpoint.md');
      await until(() => sup.snapshot().runs.length === 0, 'the run to leave');
      for (let i = 0; i < 5; i++) await l.settled();
      await new Promise((r) => setTimeout(r, 100));
      await l.settled();
      // Consecutive reads of the same version would be the double read of issue 9 item 4.
      expect(seen.filter((v, i) => i > 0 && v === seen[i - 1])).toEqual([]);
      expect(seen.at(-1)).toBe('done');
    } finally {
      disposeStore(store);
      await sup.close({ cancel: true });
    }
  }, 60_000);
});
