import { afterEach, describe, expect, it } from 'vitest';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEMO, PHASE_1_2, doneFile, summaries, tempDir, writeFiles } from '../../../helpers/workspace.js';
import { holdOpen, killWriters, settle } from '../../../helpers/writer.js';
import { loadConfig } from '../../../../src/pipeline/config/config.js';
import { pickLaunches } from '../../../../src/run/supervisor/autopilot.js';
import { replayJournal } from '../../../../src/run/journal/ledger-fold.js';
import { heldOutputs } from '../../../../src/holders/held-outputs.js';
import { openSupervisor, type Supervisor } from '../../../../src/run/supervisor/supervisor.js';
import type { NextStep } from '../../../../src/types.js';

// Issue 17 item 1 on the supervisor's side: a launch (the operator's relaunch, the `run`
// CLI) and autopilot's redo back up the output before the attempt; a writer checkroom did
// not launch, holding that file open and quiet, must keep it.

const AGENT = join(DEMO, 'agents', 'fake-agent.mjs');
const DRAFT = 'drafts/ch05-draft.md';
const HALF = '# ch05 draft\n\nThe writer paused in the middle of a';

const sups: Supervisor[] = [];
afterEach(async () => {
  killWriters();
  for (const s of sups.splice(0)) await s.close({ cancel: true });
});

function workspace(): string {
  const root = tempDir('checkroom-external-launch-');
  writeFiles(root, {
    ...PHASE_1_2,
    'meta/chapter-summaries.md': summaries([]),
    [doneFile('ch05', 'research')[0]]: doneFile('ch05', 'research')[1],
    [DRAFT]: HALF,
  });
  writeFileSync(
    join(root, 'checkroom.yaml'),
    [
      'preset: book',
      'units: { list: [ch05] }',
      'batches: [{ id: 1, units: [ch05] }]',
      'agents:',
      '  writer:',
      `    command: [node, ${JSON.stringify(AGENT)}, --unit, '{unit}', --step, '{step}', --output, '{output}', --marker, '{marker}', --attempt, '{attempt}', --workspace, '{workspace}']`,
      "    env: { CHECKROOM_FAKE_SPEED: '40' }",
      '',
    ].join('\n'),
  );
  settle(root);
  return root;
}

const backups = (root: string): string[] => readdirSync(join(root, 'drafts')).filter((f) => f.includes('.bak.'));
const redo: NextStep = { priority: 2, unit: 'ch05', step: 'draft', action: 'backup_redo', reason: 'half-product', blocks: 0 };

describe('launching over a file a writer checkroom did not launch holds', () => {
  it('the launch is refused, saying who holds it, and nothing is backed up', async () => {
    const root = workspace();
    const w = await holdOpen(join(root, DRAFT));
    const config = await loadConfig(root);
    const sup = await openSupervisor({ root, config });
    sups.push(sup);
    await expect(sup.launch('ch05', 'draft')).rejects.toThrow(
      new RegExp(`^ch05 draft is not launched: drafts/ch05-draft\\.md is being written by pid ${w.pid} \\(sh\\) since \\d\\d:\\d\\d \\(not launched by checkroom\\); wait until it stops$`),
    );
    expect(backups(root)).toEqual([]);
    await w.finish(' sentence.\n');
    expect(readFileSync(join(root, DRAFT), 'utf8')).toBe(`${HALF} sentence.\n`);
  });

  it("autopilot's pick leaves the redo blocked with the reason; nobody holding it, it goes", async () => {
    const root = workspace();
    const config = await loadConfig(root);
    const base = { ledger: replayJournal([], 0, { breaker: config.breaker, limits: config.limits }), config, budget: 10, redoHalfProducts: true, inFlight: new Map() };
    const w = await holdOpen(join(root, DRAFT));
    const liveOutputs = heldOutputs(root, [DRAFT], new Set());
    const pick = pickLaunches({ ...base, plan: [redo], liveOutputs });
    expect(pick.launch).toEqual([]);
    expect(pick.blocked).toEqual([{ unit: 'ch05', step: 'draft', why: expect.stringMatching(new RegExp(`^drafts/ch05-draft\\.md is being written by pid ${w.pid} \\(sh\\)`)), retryInMs: null }]);
    await w.finish();
    const free = pickLaunches({ ...base, plan: [redo], liveOutputs: heldOutputs(root, [DRAFT], new Set()) });
    expect(free.launch.map((c) => `${c.unit}/${c.step}`)).toEqual(['ch05/draft']);
  });
});
