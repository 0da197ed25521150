import { afterEach, describe, expect, it } from 'vitest';
import { appendFileSync, renameSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createLiveWorkspace, type LiveWorkspace } from '../../../src/live/live-workspace.js';
import type { WorkspaceState } from '../../../src/types.js';
import { tempDir, writeFiles, PHASE_1_2, summaries, prose, doneFile } from '../../helpers/workspace.js';

// Live watching on real files: written, gains its marker, renamed into place, deleted.

const until = async (live: LiveWorkspace, pred: (s: WorkspaceState) => boolean): Promise<WorkspaceState> => {
  for (let i = 0; i < 400; i++) {
    if (pred(live.state)) return live.state;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('condition not reached');
};
const cell = (s: WorkspaceState, u: string, st: string) => s.cells.find((c) => c.unit === u && c.step === st);

let live: LiveWorkspace | null = null;
afterEach(async () => {
  await live?.close();
  live = null;
});

describe('live workspace', () => {
  it('keeps the last state and says so when the workspace directory is deleted, and picks it up again', async () => {
    const root = tempDir();
    const files = { ...PHASE_1_2, 'meta/chapter-summaries.md': summaries([]), ...Object.fromEntries([doneFile('ch01', 'research')]) };
    writeFiles(root, files);
    live = await createLiveWorkspace(root, { pollMs: 50 });
    expect(live.watching.mode).toBe('watch');
    const before = live.state;
    expect(cell(before, 'ch01', 'research')?.status).toBe('done');
    let published = 0;
    live.subscribe(() => published++);

    rmSync(root, { recursive: true, force: true });
    for (let i = 0; i < 400 && live.watching.mode !== 'poll'; i++) await new Promise((r) => setTimeout(r, 10));
    expect(live.watching.mode).toBe('poll');
    expect(live.watching.notice).toMatch(/workspace directory is gone/);
    // The last state read, not an empty one that would look like a fresh pipeline.
    expect(published).toBeGreaterThan(0);
    expect(cell(live.state, 'ch01', 'research')?.status).toBe('done');
    expect(live.state.units).toEqual(before.units);

    // Back (restored from a backup, a checkout): polling reads it again.
    writeFiles(root, { ...files, ...Object.fromEntries([doneFile('ch01', 'draft')]) });
    await until(live, (s) => cell(s, 'ch01', 'draft')?.status === 'done');
    expect(live.watching.notice).toMatch(/came back/);
  });

  it('follows a file through write, marker, rename-into-place and delete with one watch per directory', async () => {
    const root = tempDir();
    writeFiles(root, { ...PHASE_1_2, 'meta/chapter-summaries.md': summaries([]), ...Object.fromEntries([doneFile('ch01', 'research')]) });
    mkdirSync(join(root, 'drafts'));
    live = await createLiveWorkspace(root);
    expect(live.watching.mode).toBe('watch');
    expect(live.watching.watches).toBeLessThan(12);
    const draft = join(root, 'drafts/ch01-draft.md');

    writeFileSync(draft, `# Draft\n\n${prose(300)}\n`);
    await until(live, (s) => cell(s, 'ch01', 'draft')?.status === 'partial');

    appendFileSync(draft, '\n<!-- DRAFT_COMPLETE -->\n');
    await until(live, (s) => cell(s, 'ch01', 'draft')?.status === 'done');

    // An agent writes a temp file and renames it into place.
    const tmp = join(root, 'reviews');
    mkdirSync(tmp, { recursive: true });
    await until(live, (s) => s.scannedAt > 0);
    writeFileSync(join(tmp, '.r1.tmp'), `# R1\n\n${prose(300)}\n\n<!-- R1_CODE_REVIEW_COMPLETE -->\n`);
    renameSync(join(tmp, '.r1.tmp'), join(tmp, 'ch01-r1-code.md'));
    await until(live, (s) => cell(s, 'ch01', 'r1')?.status === 'done');

    rmSync(draft);
    await until(live, (s) => cell(s, 'ch01', 'draft')?.status === 'not_started');
  });

  it('discovers a new chapter from a file name', async () => {
    const root = tempDir();
    writeFiles(root, { ...PHASE_1_2, ...Object.fromEntries([doneFile('ch01', 'research')]) });
    live = await createLiveWorkspace(root);
    writeFileSync(join(root, 'research/ch02-research.md'), 'short');
    const s = await until(live, (st) => st.units.includes('ch02'));
    expect(cell(s, 'ch02', 'research')!.triage!.verdict).toBe('almost_certainly_partial');
    expect(cell(s, 'ch02', 'draft')!.status).toBe('not_started');
  });
});

describe('live workspace without watches', () => {
  it('falls back to periodic rescans and says so', async () => {
    const root = tempDir();
    writeFiles(root, { ...PHASE_1_2, 'meta/chapter-summaries.md': summaries([]), ...Object.fromEntries([doneFile('ch01', 'research')]) });
    live = await createLiveWorkspace(root, { poll: true, pollMs: 50 });
    expect(live.watching).toMatchObject({ mode: 'poll', watches: 0 });
    expect(live.watching.notice).toContain('rescanning');
    writeFileSync(join(root, 'drafts-x.md'), 'unrelated');
    mkdirSync(join(root, 'drafts'), { recursive: true });
    writeFileSync(join(root, 'drafts/ch01-draft.md'), `# D\n\n${prose(300)}\n\n<!-- DRAFT_COMPLETE -->\n`);
    await until(live, (s) => cell(s, 'ch01', 'draft')?.status === 'done');
  });
});

describe('live workspace edge cases (review findings)', () => {
  it('follows a step directory that is deleted and created again', async () => {
    const root = tempDir();
    writeFiles(root, { ...PHASE_1_2, 'meta/chapter-summaries.md': summaries([]), ...Object.fromEntries([doneFile('ch01', 'research')]), 'drafts/ch01-draft.md': 'x' });
    live = await createLiveWorkspace(root);
    rmSync(join(root, 'drafts'), { recursive: true });
    await until(live, (s) => cell(s, 'ch01', 'draft')?.status === 'not_started');
    mkdirSync(join(root, 'drafts'));
    await new Promise((r) => setTimeout(r, 100));
    writeFileSync(join(root, 'drafts/ch01-draft.md'), `# D\n\n${prose(300)}\n\n<!-- DRAFT_COMPLETE -->\n`);
    await until(live, (s) => cell(s, 'ch01', 'draft')?.status === 'done');
  });

  it('drops a unit whose only file moved away', async () => {
    const root = tempDir();
    writeFiles(root, { ...PHASE_1_2, 'meta/chapter-summaries.md': summaries([]), ...Object.fromEntries([doneFile('ch01', 'research'), doneFile('ch02', 'research')]) });
    live = await createLiveWorkspace(root);
    expect(live.state.units).toEqual(['ch01', 'ch02']);
    renameSync(join(root, 'research/ch02-research.md'), join(root, 'ch02-notes.md'));
    await until(live, (s) => !s.units.includes('ch02'));
  });

  it('watches a checkpoint.md that lives in a subdirectory', async () => {
    const root = tempDir();
    writeFiles(root, {
      ...PHASE_1_2,
      'meta/chapter-summaries.md': summaries([]),
      'checkroom.yaml': 'sources: { checkpoint: state/checkpoint.md }\n',
      'state/checkpoint.md': '# B — Progress Checkpoint\n\n### Batch 1\n| Chapter | Research |\n|---|---|\n| ch01 | ❌ |\n',
    });
    live = await createLiveWorkspace(root);
    expect(cell(live.state, 'ch01', 'research')?.status).toBe('failed');
    writeFileSync(join(root, 'state/checkpoint.md'), '# B — Progress Checkpoint\n\n### Batch 1\n| Chapter | Research |\n|---|---|\n| ch01 | — |\n');
    await until(live, (s) => cell(s, 'ch01', 'research')?.status === 'not_started');
  });
});
