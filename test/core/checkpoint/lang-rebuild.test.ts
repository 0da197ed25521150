import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { rewriteCheckpoint } from '../../../src/checkpoint/rewrite.js';
import { writeResume } from '../../../src/resume/io.js';
import { loadWorkspace } from '../../../src/workspace.js';
import { contentLang } from '../../../src/checkpoint/lang.js';
import { RESUME_VOCAB } from '../../../src/resume/vocab.js';
import { VOCAB } from '../../../src/checkpoint/i18n.js';
import { doneFile, PHASE_1_2, prose, summaries, tempDir, writeFiles } from '../../helpers/workspace.js';

// Issue 8 item 6: checkpoint.md and RESUME.md rebuilt with no old file came out in English
// for a Japanese or Chinese workspace. The old file, else the content, else `language:`.

const at = new Date(2026, 10, 30, 5, 12, 0);
const kana = (n: number) => `${'これはテストの本文です。'.repeat(Math.ceil(n / 12)).slice(0, n - 1)}。`;

function workspace(body: (u: string) => string, extra: Record<string, string> = {}) {
  const dir = tempDir();
  writeFiles(dir, {
    ...PHASE_1_2,
    'meta/chapter-summaries.md': summaries([]),
    ...Object.fromEntries([doneFile('ch01', 'research', `# ch01\n\n${body('ch01')}`), doneFile('ch02', 'research', `# ch02\n\n${body('ch02')}`)]),
    ...extra,
  });
  return dir;
}

describe('the language of rebuilt files', () => {
  it('reads Japanese from kana and Chinese from Han without kana', () => {
    expect(contentLang(kana(200))).toBe('ja');
    expect(contentLang(prose(200))).toBe('zh');
    expect(contentLang('An English text that names 東京 once, and 大阪 too.')).toBeNull();
  });

  it('rebuilds checkpoint.md and RESUME.md in Japanese for a Japanese workspace with neither file', async () => {
    const dir = workspace(() => kana(400));
    const cp = (await rewriteCheckpoint(dir, at)).text;
    expect(cp.split('\n')[0]).toContain(VOCAB.ja.titleSuffix);
    const state = await loadWorkspace(dir);
    const r = await writeResume(dir, state, { now: at });
    expect(readFileSync(join(dir, r.path), 'utf8').split('\n')[0]).toContain(RESUME_VOCAB.ja.title);
  });

  it('rebuilds in Chinese for Han content', async () => {
    const dir = workspace(() => prose(400));
    const cp = (await rewriteCheckpoint(dir, at)).text;
    expect(cp.split('\n')[0]).toContain(VOCAB.zh.titleSuffix);
  });

  it('keeps the old file language first, and falls back to language: in checkroom.yaml for English content', async () => {
    const dir = workspace(() => `${'Plain English prose. '.repeat(30)}Done.`, { 'checkroom.yaml': 'language: ja\n' });
    expect((await rewriteCheckpoint(dir, at)).text.split('\n')[0]).toContain(VOCAB.ja.titleSuffix);
    // Now an old English letter exists: it decides for the letter.
    writeFiles(dir, { 'RESUME.md': `# ${RESUME_VOCAB.en.title}\n` });
    const state = await loadWorkspace(dir);
    const r = await writeResume(dir, state, { now: at });
    expect(readFileSync(join(dir, r.path), 'utf8').split('\n')[0]).toContain(RESUME_VOCAB.en.title);
    // And with no letter, the Japanese checkpoint.md (rebuilt above) decides.
    rmSync(join(dir, 'RESUME.md'));
    rmSync(join(dir, 'checkroom.yaml'));
    const again = await writeResume(dir, await loadWorkspace(dir), { now: at });
    expect(readFileSync(join(dir, again.path), 'utf8').split('\n')[0]).toContain(RESUME_VOCAB.ja.title);
  });
});
