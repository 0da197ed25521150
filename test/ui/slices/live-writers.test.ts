import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { PHASE_1_2, summaries, tempDir, writeFiles } from '../../helpers/workspace.js';
import { loadConfig } from '../../../src/pipeline/config/config.js';
import { loadWorkspace } from '../../../src/workspace.js';
import { appendJournal } from '../../../src/run/journal/journal.js';
import { openSupervisor } from '../../../src/run/supervisor/supervisor.js';
import { initialAgents } from '../../../src/ui/agents/types.js';
import { liveWriters, writerOf, writingWhy } from '../../../src/ui/agents/live-writers.js';

// The one predicate behind "live writers are untouchable" (issue 8 item 1), on a real
// workspace and a real journal: a run the journal shows started without an end — another
// instance's, or one adopted after a restart — holds its file, and a shared long-memory file
// is held for every chapter whose step writes it.

describe('liveWriters', () => {
  it('a run the journal shows alive holds its file, and the shared memory file for every chapter', async () => {
    const root = tempDir('checkroom-live-writers-');
    writeFiles(root, { ...PHASE_1_2, 'meta/chapter-summaries.md': summaries(['ch01']), 'checkroom.yaml': 'preset: book\nunits: { list: [ch03, ch04] }\n' });
    await appendJournal(root, {
      type: 'launch', at: 1, runId: 'r-mem', unit: 'ch03', step: 'memory', agent: 'archivist', attempt: 1, argv: ['agent'], cwd: root, logPath: join(root, '.checkroom/runs/r.log'), pid: 4242, procStart: 7, outputPath: join(root, 'meta/chapter-summaries.md'),
    });
    const config = await loadConfig(root);
    // Read-only: the journal is read as another instance would see it, nothing is reaped.
    const sup = await openSupervisor({ root, config, readonly: true });
    const ws = await loadWorkspace(root, { config });
    const writers = liveWriters({ ws, agents: { ...initialAgents(), enabled: true, snap: sup.snapshot() } });
    expect(writers).toEqual([{ unit: 'ch03', step: 'memory', path: 'meta/chapter-summaries.md', pid: 4242, by: 'journal', waiting: false }]);

    const ch04 = { unit: 'ch04', step: 'memory', path: 'meta/chapter-summaries.md' };
    const w = writerOf(writers, ch04);
    expect(w?.unit).toBe('ch03');
    expect(writingWhy(w!, ch04)).toBe('meta/chapter-summaries.md is being written by ch03 memory (pid 4242): hands off until it stops (no back-up, keep or redo); a run this control room did not start');
    expect(writerOf(writers, { unit: 'ch03', step: 'draft', path: 'drafts/ch03-draft.md' })).toBeNull();
    await sup.close();
  });
});
