import { afterEach, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PHASE_1_2, doneFile, summaries, tempDir, writeFiles } from '../../helpers/workspace.js';
import { settle } from '../../helpers/settle.js';
import { loadConfig } from '../../../src/pipeline/config/config.js';
import { loadWorkspace } from '../../../src/workspace.js';
import { openSupervisor, type Supervisor } from '../../../src/run/supervisor/supervisor.js';
import { readJournal } from '../../../src/run/journal/journal.js';
import { gatherRedo } from '../../../src/redo/gather.js';
import { applyRedo } from '../../../src/redo/apply.js';
import { diskPorts } from '../../../src/redo/ports.js';
import { checkOverride } from '../../../src/redo/override.js';

// Fork from here (docs/redo.md): the redo's agent and prompt reach the launcher for the
// cell's next run, whoever launches it, and only that run; a restart keeps the fork.

const sups: Supervisor[] = [];
afterEach(async () => {
  for (const s of sups.splice(0)) await s.close({ cancel: true });
});

// Writes who ran it and the prompt it was handed, then the marker.
const AGENT = `const [out, marker, who] = process.argv.slice(2);
require('fs').writeFileSync(out, '# by ' + who + ' prompt=' + (process.env.CHECKROOM_PROMPT || 'none') + '\\n\\n' + 'x'.repeat(300) + '\\n\\n<!-- ' + marker + ' -->\\n');`;

function workspace(): string {
  const root = tempDir('checkroom-redo-fork-');
  writeFiles(root, {
    ...PHASE_1_2,
    'meta/chapter-summaries.md': summaries([]),
    [doneFile('ch05', 'research')[0]]: doneFile('ch05', 'research')[1],
    [doneFile('ch05', 'draft')[0]]: doneFile('ch05', 'draft')[1],
    'agent.cjs': AGENT,
    'prompts/draft-v2.md': 'Write it again, shorter.\n',
  });
  const agent = (who: string) => [`  ${who}:`, `    command: [node, agent.cjs, '{output}', '{marker}', ${who}]`];
  writeFileSync(join(root, 'checkroom.yaml'), ['preset: book', 'units: { list: [ch05] }', 'agents:', ...agent('writer'), ...agent('writer-b'), ''].join('\n'));
  settle(root);
  return root;
}

describe('fork from here', () => {
  it("the cell's next run uses the redo's agent and prompt, the run after it the step's own; a restart keeps the fork until then", async () => {
    const root = workspace();
    const config = await loadConfig(root);
    const override = await checkOverride(root, config, { agent: 'writer-b', prompt: './prompts/draft-v2.md' });
    expect(override).toEqual({ agent: 'writer-b', prompt: 'prompts/draft-v2.md' });
    const p = await gatherRedo(await loadWorkspace(root, { config }), { liveRuns: [] }, { unit: 'ch05', step: 'draft' }, override);
    await applyRedo(root, p, diskPorts(root, config));

    // Opened after the redo: the fork comes back from the journal.
    const sup = await openSupervisor({ root, config });
    sups.push(sup);
    expect(sup.snapshot().ledger.triage.overrides['ch05/draft']).toMatchObject({ agent: 'writer-b', prompt: 'prompts/draft-v2.md' });
    expect((await sup.launch('ch05', 'draft')).outcome).toBe('done');
    expect(readFileSync(join(root, 'drafts/ch05-draft.md'), 'utf8')).toMatch(new RegExp(`^# by writer-b prompt=${join(root, 'prompts/draft-v2.md').replace(/[/.]/g, '\\$&')}\\n`));
    expect(sup.snapshot().ledger.triage.overrides['ch05/draft']).toBeUndefined();

    expect((await sup.launch('ch05', 'draft', { force: true } as never)).outcome).toBe('done');
    expect(readFileSync(join(root, 'drafts/ch05-draft.md'), 'utf8')).toMatch(/^# by writer prompt=none\n/);
    const launches = (await readJournal(root)).events.filter((e) => e.type === 'launch');
    expect(launches.map((e) => (e.type === 'launch' ? e.agent : ''))).toEqual(['writer-b', 'writer']);
  });
});
