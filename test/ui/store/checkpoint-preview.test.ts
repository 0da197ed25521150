import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkpointDiff } from '../../../src/ui/views/checkpoint-diff.js';
import { doneFile, PHASE_1_2, REPO, summaries, tempDir, writeFiles } from '../../helpers/workspace.js';

// Issue 17 item 2: the preview of a rewrite showed the new file (CLI) or the cells that
// change (the room's `w`), so what else a rewrite touched could not be seen. Both show the
// unified line diff now, escaped.

const CLI = join(REPO, 'dist/src/cli.js');
const cli = (args: string[]) => spawnSync('node', [CLI, ...args], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' }, input: '' });

const CP = [
  '# 示例书 — 项目进度检查点',
  '最后更新: 2026-11-28 14:03',
  '',
  '> 备注 \u001b]0;pwned\u0007 别自动重试',
  '### Batch 1',
  '| 章节 | 研究 | 写作 |',
  '|------|------|------|',
  '| ch01 | ⏳   | —    |',
  '',
  '## 决策记录',
  '- 11-27: 推迟',
  '',
].join('\n');

function workspace(): string {
  const dir = tempDir();
  writeFiles(dir, { ...PHASE_1_2, 'meta/chapter-summaries.md': summaries([]), ...Object.fromEntries([doneFile('ch01', 'research')]), 'checkpoint.md': CP });
  return dir;
}

describe('the rewrite preview is a line diff (issue 17 item 2)', () => {
  it('checkroom checkpoint prints the unified diff, escaped, and writes nothing', () => {
    const dir = workspace();
    const r = cli(['checkpoint', dir]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const out = r.stdout.split('\n');
    expect(out).toContain('--- checkpoint.md (now)');
    expect(out).toContain('-| ch01 | ⏳   | —    |');
    expect(out).toContain('+| ch01 | ✅   | —    |');
    expect(out).toContain('-最后更新: 2026-11-28 14:03');
    // Context lines quote the file, escaped; the untouched section is not in any hunk.
    expect(r.stdout).toContain(' > 备注 \\e]0;pwned\\a 别自动重试');
    expect(r.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
    expect(r.stdout).not.toContain('- 11-27');
    expect(readFileSync(join(dir, 'checkpoint.md'), 'utf8')).toBe(CP);
  });

  it('the room\'s w gets the same diff: each changed line, old and new', async () => {
    const d = await checkpointDiff(workspace());
    expect(d.lines).toContain('-| ch01 | ⏳   | —    |');
    expect(d.lines).toContain('+| ch01 | ✅   | —    |');
    // Only the owned spans: the time, the two header fields the file lacked (added), the cell.
    expect(d.lines.filter((l) => /^[-+]/.test(l)).map((l) => l.replace(/\d{4}-\d\d-\d\d \d\d:\d\d/, 'T'))).toEqual([
      '-最后更新: T',
      '+最后更新: T',
      '+当前Phase: 3',
      '+当前批次: Batch 1',
      '-| ch01 | ⏳   | —    |',
      '+| ch01 | ✅   | —    |',
    ]);
  });
});
