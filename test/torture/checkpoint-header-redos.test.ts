import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { matchHeader, readNumber } from '../../src/checkpoint/header.js';
import { PHASE_1_2, REPO, summaries, tempDir, writeFiles } from '../helpers/workspace.js';

// Issue 16 item 3 (found while moving patterns to RE2): checkpoint.md's header patterns
// backtracked cubically on V8 over a header line of spaces (1,000 spaces: 1.5 s; 4,000: 93 s),
// and readNumber quadratically over a value of spaces; checkpoint.md is workspace text read
// up to 4 MB. The 15 s bound kills a backtracking status instead of hanging the test.

const CLI = join(REPO, JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')).bin.checkroom);
const SPACES = ' '.repeat(20_000);

describe('torture: checkpoint.md header lines cannot hang (issue 16 item 3)', () => {
  it('checkroom status answers on header lines built to backtrack', { timeout: 60_000 }, () => {
    const root = tempDir('checkroom-hdr-');
    writeFiles(root, {
      ...PHASE_1_2,
      'meta/chapter-summaries.md': summaries(['ch01']),
      'checkpoint.md': `# Book\n\nLast updated: a${SPACES}x\nCurrent phase: Phase${SPACES}x\nCurrent batch: **${SPACES}\n\n## Phase 3\n\n| Chapter | Research |\n|---|---|\n| ch01 | ⏳ |\n`,
    });
    const r = spawnSync('node', [CLI, 'status', '--json', root], { encoding: 'utf8', timeout: 15_000, killSignal: 'SIGKILL' });
    expect(r.signal, 'status was killed: it did not answer within the bound').toBeNull();
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).checkpoint.exists).toBe(true);
  });

  it('still reads headers as before: bold, list items, full-width colon and space', () => {
    expect(matchHeader('- **Current phase:** Phase 3')).toMatchObject({ key: 'currentPhase', value: 'Phase 3' });
    expect(matchHeader('当前 Phase：\u3000第 3 阶段')).toMatchObject({ key: 'currentPhase', value: '第 3 阶段' });
    expect(matchHeader('LastUpdated: 2026-11-28 14:03  ')).toMatchObject({ key: 'lastUpdate', value: '2026-11-28 14:03', start: 13, end: 29 });
    expect(readNumber('Phase 3')).toBe(3);
    expect(readNumber('批次 #12')).toBe(12);
    expect(readNumber(`Phase${SPACES}x`)).toBe(undefined);
    expect(readNumber('—')).toBe(null);
  });
});
