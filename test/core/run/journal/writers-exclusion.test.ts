import { afterEach, describe, expect, it } from 'vitest';
import { tempDir, writeFakeAgentWs } from '../../../helpers/workspace.js';
import { loadConfig } from '../../../../src/pipeline/config/config.js';
import { pickLaunches } from '../../../../src/run/supervisor/autopilot.js';
import { replayJournal } from '../../../../src/run/journal/ledger-fold.js';
import type { LedgerConfig } from '../../../../src/run/journal/ledger.js';
import type { JournalEvent } from '../../../../src/run/journal/journal.js';
import { openSupervisor, type Supervisor } from '../../../../src/run/supervisor/supervisor.js';
import type { NextStep } from '../../../../src/types.js';

// Issue 8 item 1: never two live writers on one output path, whatever the concurrency says.
// The long-memory steps of every chapter write meta/chapter-summaries.md.

const makeWs = (faults: Record<string, string> = {}): string =>
  writeFakeAgentWs(tempDir('checkroom-writers-'), { units: ['ch01', 'ch02', 'ch03'], faults, agent: 'archivist', roles: ['writer'], speed: 40, idle: '30s', concurrency: 3, tail: [] });

const run = (unit: string, step: string): NextStep => ({ priority: 3, unit, step, action: 'run', reason: 'ready', blocks: 0 });

describe('path-keyed exclusion of writers', () => {
  it('autopilot starts one memory step at a time although the archivist may run three', async () => {
    const config = await loadConfig(makeWs());
    const cfg: LedgerConfig = { breaker: config.breaker, limits: config.limits };
    const base = { ledger: replayJournal([], 0, cfg), config, budget: 10, redoHalfProducts: true };
    const plan = [run('ch01', 'memory'), run('ch02', 'memory'), run('ch01', 'draft'), run('ch02', 'draft')];

    const pick = pickLaunches({ ...base, plan, inFlight: new Map() });
    expect(pick.launch.map((c) => `${c.unit}/${c.step}`)).toEqual(['ch01/memory', 'ch01/draft', 'ch02/draft']);
    expect(pick.blocked).toEqual([{ unit: 'ch02', step: 'memory', why: 'meta/chapter-summaries.md is being written by ch01 memory; one writer per file', retryInMs: null }]);

    // A memory step already in flight holds the file for every other chapter.
    const busy = pickLaunches({ ...base, plan, inFlight: new Map([['ch03/memory', 'archivist']]) });
    expect(busy.launch.map((c) => `${c.unit}/${c.step}`)).toEqual(['ch01/draft', 'ch02/draft']);

    // So does a run the journal shows alive (another instance's, or one adopted after a restart).
    const launch: JournalEvent = { v: 1, type: 'launch', at: 1, runId: 'r1', unit: 'ch03', step: 'memory', agent: 'archivist', attempt: 1, argv: ['x'], cwd: '/', logPath: '/l', pid: 1, procStart: 1, outputPath: '/ws/meta/chapter-summaries.md' };
    const other = pickLaunches({ ...base, ledger: replayJournal([launch], 2, cfg), plan, inFlight: new Map() });
    expect(other.launch.map((c) => `${c.unit}/${c.step}`)).toEqual(['ch01/draft', 'ch02/draft']);
    expect(other.blocked.map((b) => b.why)).toEqual(['meta/chapter-summaries.md is being written by ch03 memory; one writer per file', 'meta/chapter-summaries.md is being written by ch03 memory; one writer per file']);
  });

  const open: Supervisor[] = [];
  afterEach(async () => {
    for (const s of open.splice(0)) await s.close({ cancel: true });
  });

  it('a manual launch onto a file another run writes is refused, saying which run', async () => {
    const root = makeWs({ 'ch01/memory': 'hang' });
    const sup = await openSupervisor({ root, config: await loadConfig(root) });
    open.push(sup);
    const first = sup.launch('ch01', 'memory');
    first.catch(() => undefined);
    await expect(sup.launch('ch02', 'memory')).rejects.toThrow('ch02 memory is not launched: meta/chapter-summaries.md is being written by ch01 memory; one writer per file; wait until it stops');
    expect(sup.cancel('ch01/memory')).toBe(true);
    await first;
  });
});
