import { describe, expect, it } from 'vitest';
import { loadWorkspace } from '../../../src/workspace.js';
import { say } from '../../../src/reasons/say.js';
import { marked, PHASE_1_2, prose, summaries, tempDir, writeFiles } from '../../helpers/workspace.js';

// Issue 8 item 6: a plan entry's action and its reason come from one decision. A cut-off
// file whose dependencies are not done is `decide`, and its reason must not say "back up and
// redo" (which the finding alone would advise): it says what the redo waits on.

async function cutReviewWithInputsNotDone() {
  const root = tempDir();
  writeFiles(root, {
    ...PHASE_1_2,
    'meta/chapter-summaries.md': summaries([]),
    'research/ch02-research.md': marked(`# R\n\n${prose(300)}`, 'RESEARCH_COMPLETE'),
    'drafts/ch02-draft.md': marked(`# D\n\n${prose(300)}`, 'DRAFT_COMPLETE'),
    'reviews/ch02-review.md': '# Merged review\n\nonly a start',
  });
  return loadWorkspace(root);
}

describe('half-product plan entries', () => {
  it('say decide, and why, when the redo waits on dependencies', async () => {
    const s = await cutReviewWithInputsNotDone();
    const n = s.next.find((x) => x.unit === 'ch02' && x.step === 'review')!;
    expect(n.action).toBe('decide');
    expect(n.reason).not.toMatch(/back up and redo/);
    expect(n.reason).toMatch(/^reviews\/ch02-review\.md: only \d+ characters .*cut off early; it cannot be redone before r1, r2, r3 are done: decide/);
    // The same decision in the workspace's other languages: no "redo" advice there either.
    expect(say(n.why!, 'ja')).not.toContain('バックアップしてやり直す');
    expect(say(n.why!, 'ja')).toContain('r1、r2、r3 が完了するまでやり直せない');
    expect(say(n.why!, 'zh')).not.toContain('备份后重做');
  });

  it('say back up and redo when the redo can run', async () => {
    const root = tempDir();
    writeFiles(root, {
      ...PHASE_1_2,
      'meta/chapter-summaries.md': summaries([]),
      'research/ch01-research.md': marked(`# R\n\n${prose(300)}`, 'RESEARCH_COMPLETE'),
      'drafts/ch01-draft.md': '# Draft\n\nonly a start',
    });
    const s = await loadWorkspace(root);
    const n = s.next.find((x) => x.unit === 'ch01' && x.step === 'draft')!;
    expect(n.action).toBe('backup_redo');
    expect(n.reason).toMatch(/; back up and redo$/);
  });
});
