import { afterEach, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEMO, PHASE_1_2, summaries, tempDir, writeFiles } from '../../../helpers/workspace.js';
import { loadConfig } from '../../../../src/pipeline/config/config.js';
import { pickLaunches } from '../../../../src/run/supervisor/autopilot.js';
import { replayJournal } from '../../../../src/run/journal/ledger-fold.js';
import type { LedgerConfig } from '../../../../src/run/journal/ledger.js';
import type { JournalEvent } from '../../../../src/run/journal/journal.js';
import { openSupervisor, type Supervisor } from '../../../../src/run/supervisor/supervisor.js';
import type { NextStep } from '../../../../src/types.js';

// Issue 8 item 1: never two live writers on one output path, whatever the concurrency says.
// The long-memory steps of every chapter write meta/chapter-summaries.md.

const AGENT = join(DEMO, 'agents', 'fake-agent.mjs');

const makeWs = (faults: Record<string, string> = {}): string => {
  const root = tempDir('checkroom-writers-');
  writeFiles(root, { ...PHASE_1_2, 'meta/chapter-summaries.md': summaries([]), 'faults.json': JSON.stringify({ ...faults, '*/*': 'ok' }) });
  writeFileSync(
    join(root, 'checkroom.yaml'),
    [
      'preset: book',
      'units: { list: [ch01, ch02, ch03] }',
      'batches: [{ id: 1, units: [ch01, ch02, ch03] }]',
      'agents:',
      '  archivist: &a',
      `    command: [node, ${JSON.stringify(AGENT)}, --unit, '{unit}', --step, '{step}', --output, '{output}', --marker, '{marker}', --attempt, '{attempt}', --workspace, '{workspace}', --faults, ${JSON.stringify(join(root, 'faults.json'))}]`,
      "    env: { CHECKROOM_FAKE_SPEED: '40' }",
      '    idle_timeout: 30s',
      '    grace: 200ms',
      '    concurrency: 3',
      '  writer: *a',
      '',
    ].join('\n'),
  );
  return root;
};

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
