import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseCli } from '../../../src/cli/args.js';
import { recoverCommand } from '../../../src/cli/commands/recovery-commands.js';
import { RecoverRefused } from '../../../src/recover/guard.js';
import { recoverReport } from '../../../src/recover/report.js';
import { bookPreset } from '../../../src/pipeline/book-preset.js';
import { checkpointRowUnits, explainPatternMiss, unitPatternWarnings } from '../../../src/scan/units.js';
import { REPO, copyDemo, doneFile, tempDir, writeFiles } from '../../helpers/workspace.js';

// `checkroom recover` refuses to write where it has no view of a pipeline (reviewer findings
// 1 and 2), and reports a checkpoint.md it cannot replace instead of dying on it (finding 3).

const CLI = join(REPO, 'dist/src/cli.js');
const run = (args: string[]) => {
  const r = spawnSync('node', [CLI, ...args], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', COLUMNS: '100' }, input: '' });
  return { code: r.status, out: r.stdout, err: r.stderr };
};
const o = { paint: (_t: string, s: string) => s, ascii: true, width: 100 };
const capture = () => {
  let text = '';
  return { out: { write: (s: string) => void (text += s) }, text: () => text };
};

/** Every entry under root → sha256 of a file's bytes (or `dir`): any write, new file or new directory changes it. */
function tree(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const abs = join(dir, e.name);
      if (e.isDirectory()) {
        out.set(relative(root, abs) + '/', 'dir');
        walk(abs);
      } else out.set(relative(root, abs), createHash('sha256').update(readFileSync(abs)).digest('hex') + ':' + statSync(abs).mtimeMs);
    }
  };
  walk(root);
  return out;
}

/** The demo with `units: { pattern: 'chapter-\d+' }` appended to its checkroom.yaml. */
function demoWithPattern(): string {
  const root = copyDemo();
  appendFileSync(join(root, 'checkroom.yaml'), "\nunits: { pattern: 'chapter-\\d+' }\n");
  return root;
}

describe('recover outside a workspace (finding 1)', () => {
  it('refuses a directory of source code, dry run or not, and writes nothing', () => {
    const root = tempDir();
    cpSync(join(REPO, 'src'), join(root, 'notws'), { recursive: true });
    const dir = join(root, 'notws');
    const before = tree(dir);
    for (const args of [['recover', dir], ['recover', dir, '--dry-run'], ['recover', dir, '--json']]) {
      const r = run(args);
      expect(r.code).toBe(2);
      expect(r.out).toBe('');
      expect(r.err).toContain('does not look like a pipeline workspace: no checkroom.yaml, no checkpoint.md, no RESUME.md');
      expect(r.err).toContain('nothing was written');
      expect(r.err).toContain('create checkroom.yaml first');
      expect(tree(dir)).toEqual(before);
    }
    expect(existsSync(join(dir, 'checkpoint.md'))).toBe(false);
    expect(existsSync(join(dir, 'RESUME.md'))).toBe(false);
  });

  it('refuses an empty directory without creating anything in it', async () => {
    const dir = tempDir();
    await expect(recoverReport(dir, { dryRun: false })).rejects.toThrow(RecoverRefused);
    await expect(recoverCommand(parseCli(['recover', dir, '--dry-run']), o, capture().out)).rejects.toMatchObject({ kind: 'not_workspace' });
    expect(readdirSync(dir)).toEqual([]);
    const r = run(['recover', dir]);
    expect(r.code).toBe(2);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('still recovers a workspace that has only a checkroom.yaml, or only phase-1 files', async () => {
    const a = tempDir();
    writeFileSync(join(a, 'checkroom.yaml'), '');
    const ra = await recoverReport(a, { dryRun: false });
    expect(ra.rebuilt.filter((x) => x.done).map((x) => x.target)).toEqual(['checkpoint.md', 'RESUME.md']);
    const b = tempDir();
    writeFiles(b, { 'outline-final.md': '# Outline\n\n- ch01\n' });
    const rb = await recoverReport(b, { dryRun: true });
    expect(rb.rebuilt.map((x) => x.target)).toEqual(['checkpoint.md', 'RESUME.md']);
  });
});

describe('recover with a units.pattern that matches nothing (finding 2)', () => {
  it('refuses, naming the pattern, the checkpoint rows and the files it rejected; writes nothing', () => {
    const root = demoWithPattern();
    const before = tree(root);
    for (const args of [['recover', root, '--dry-run'], ['recover', root]]) {
      const r = run(args);
      expect(r.code).toBe(2);
      expect(r.out).toBe('');
      expect(r.err).toContain("units.pattern 'chapter-\\d+' matches no unit; checkpoint.md names ch01, ch02, ch03, ch04, … (9 rows)");
      expect(r.err).toMatch(/\d+ step outputs on disk do not match \(research\/ch01-research\.md, /);
      expect(r.err).toContain('nothing was written');
      expect(r.err).toContain('Set units.pattern in checkroom.yaml');
      expect(r.err).not.toContain('agrees with the disk');
      expect(tree(root)).toEqual(before);
    }
  });

  it('says the pattern is the preset default when there is no checkroom.yaml', async () => {
    const root = tempDir();
    writeFiles(root, Object.fromEntries([doneFile('ch01', 'research')].map(([p, t]) => [p.replace('ch01', 'chapter-1'), t])));
    const before = tree(root);
    const err = await recoverReport(root, { dryRun: false }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RecoverRefused);
    expect((err as RecoverRefused).kind).toBe('pattern_miss');
    expect((err as Error).message).toContain("units.pattern 'ch\\d{2,3}' matches no unit; 1 step output on disk does not match (research/chapter-1-research.md)");
    expect((err as Error).message).toContain("the book preset's default: create checkroom.yaml");
    expect(tree(root)).toEqual(before);
  });

  it('explainPatternMiss is null once any unit is found, and for a fresh workspace', () => {
    const root = demoWithPattern();
    const p = { ...bookPreset(), units: { pattern: 'chapter-\\d+' } };
    expect(explainPatternMiss(root, p, 'checkpoint.md', ['ch01'])).toBeNull();
    expect(explainPatternMiss(root, { ...p, units: { pattern: 'x', list: ['a'] } }, 'checkpoint.md', [])).toBeNull();
    expect(explainPatternMiss(tempDir(), p, 'checkpoint.md', [])).toBeNull();
    const miss = explainPatternMiss(root, p, 'checkpoint.md', [])!;
    expect(miss.rows).toHaveLength(9);
    expect(miss.rows).toContain('ch09');
    expect(miss.files).toContain('drafts/ch05-draft.md');
    expect(miss.files.some((f) => f.includes('.bak.'))).toBe(false);
    const [w] = unitPatternWarnings(root, p, 'checkpoint.md', []);
    expect(w.source).toBe('checkroom.yaml');
    expect(w.message).toMatch(/^units\.pattern 'chapter-\\d\+' matches no unit; checkpoint\.md names ch01, /);
    expect(unitPatternWarnings(root, bookPreset(), 'checkpoint.md', ['ch01'])).toEqual([]);
  });

  it('checkpointRowUnits reads the unit column of step tables only', () => {
    const text = [
      '# Book',
      '| 章节 | 研究 | 写作 |',
      '|------|------|------|',
      '| **ch01** | ✅ | ✅ |',
      '| chapter-2 | ✅ | — |',
      '',
      '| name | value |',
      '|---|---|',
      '| author | me |',
    ].join('\n');
    expect(checkpointRowUnits(text, bookPreset())).toEqual(['ch01', 'chapter-2']);
  });
});

describe('recover when checkpoint.md is a directory (finding 3)', () => {
  it('dry run says it cannot replace it, and what to do', async () => {
    const root = copyDemo();
    rmSync(join(root, 'checkpoint.md'));
    mkdirSync(join(root, 'checkpoint.md'));
    const before = tree(root);
    const c = capture();
    expect(await recoverCommand(parseCli(['recover', root, '--dry-run']), o, c.out)).toBe(0);
    expect(tree(root)).toEqual(before);
    const text = c.text();
    expect(text).toMatch(/checkpoint\.md\s+unreadable: it is a directory/);
    expect(text).not.toContain('[would] checkpoint.md');
    expect(text).toContain('[cannot] checkpoint.md: checkpoint.md cannot be read (it is a directory)');
    expect(text).toContain('checkpoint.md is a directory, so checkroom cannot back it up or replace it;');
    expect(text.replace(/\s+/g, ' ')).toContain('move it aside (mv checkpoint.md checkpoint.md.old) and run checkroom recover again');
    expect(text).toContain('[would] RESUME.md');
    expect(text.split('\n').every((l) => l.length <= 100)).toBe(true);
  });

  it('the real run prints the report, writes RESUME.md, leaves the directory alone and exits 1', () => {
    const root = copyDemo();
    rmSync(join(root, 'checkpoint.md'));
    mkdirSync(join(root, 'checkpoint.md'));
    writeFileSync(join(root, 'checkpoint.md', 'keep.txt'), 'mine\n');
    const oldResume = readFileSync(join(root, 'RESUME.md'), 'utf8');
    const r = run(['recover', root]);
    expect(r.code).toBe(1);
    expect(r.err).toBe('');
    expect(r.out).toContain('checkroom recover · ');
    expect(r.out).toContain('[cannot] checkpoint.md');
    expect(r.out.replace(/\s+/g, ' ')).toContain('move it aside (mv checkpoint.md checkpoint.md.old)');
    expect(r.out).toMatch(/\[done\] RESUME\.md: RESUME\.md is stale/);
    expect(r.out).toContain('6 Continue with');
    expect(statSync(join(root, 'checkpoint.md')).isDirectory()).toBe(true);
    expect(readdirSync(join(root, 'checkpoint.md'))).toEqual(['keep.txt']);
    expect(readdirSync(root).filter((f) => f.startsWith('checkpoint.md.bak'))).toEqual([]);
    const backup = readdirSync(root).find((f) => f.startsWith('RESUME.md.bak.'))!;
    expect(readFileSync(join(root, backup), 'utf8')).toBe(oldResume);
    expect(readFileSync(join(root, 'RESUME.md'), 'utf8')).not.toBe(oldResume);
    // Nothing else stands in the way now: the second run still reports the blocked checkpoint.
    const again = run(['recover', root, '--json']);
    expect(again.code).toBe(1);
    const j = JSON.parse(again.out);
    expect(j.sources.checkpoint.unreadable).toBe('it is a directory');
    expect(j.rebuilt[0]).toMatchObject({ target: 'checkpoint.md', done: false, manual: true });
    expect(j.rebuilt[0].blocked).toContain('is a directory');
  });
});
