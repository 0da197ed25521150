import { createHash } from 'node:crypto';
import { cpSync, existsSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseCli, UsageError } from '../../src/cli/args.js';
import { backupsCommand, recoverCommand, resumeCommand } from '../../src/cli/commands/recovery-commands.js';
import { interrupted, recoverReport } from '../../src/recover/report.js';
import { loadWorkspace } from '../../src/workspace.js';
import { parseResume } from '../../src/resume/parse.js';
import { DEMO, PHASE_1_2, copyDemo, doneFile, summaries, tempDir, writeFiles } from '../helpers/workspace.js';

// `checkroom recover`, `resume` and `backups` (seed 000_… section 8, the recovery flow).

const o = { paint: (_t: string, s: string) => s, ascii: true, width: 100 };
const capture = () => {
  let text = '';
  return { out: { write: (s: string) => void (text += s) }, text: () => text };
};

/** Every file under root (recursively) → sha256: a changed, added or removed file changes the map. */
function hashTree(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const abs = join(dir, e.name);
      if (e.isDirectory()) walk(abs);
      else out.set(relative(root, abs), createHash('sha256').update(readFileSync(abs)).digest('hex') + ':' + statSync(abs).mtimeMs);
    }
  };
  walk(root);
  return out;
}

describe('recover --dry-run', () => {
  it('under --ascii draws no emoji: the memory issue says what checkpoint.md claims in words', async () => {
    const c = capture();
    expect(await recoverCommand(parseCli(['recover', copyDemo(), '--dry-run', '--ascii']), o, c.out)).toBe(0);
    expect(c.text()).toContain('ch04 has no entry in meta/chapter-summaries.md: checkpoint.md claims it is done');
    expect(c.text()).not.toMatch(/\p{Extended_Pictographic}|\ufe0f/u);
  });

  it('changes nothing on the demo, yet reports every source, the stop point and what it would rebuild', async () => {
    const root = copyDemo();
    const before = hashTree(root);
    const c = capture();
    expect(await recoverCommand(parseCli(['recover', root, '--dry-run']), o, c.out)).toBe(0);
    const r = await recoverReport(root, { dryRun: true });
    expect(hashTree(root)).toEqual(before);
    const text = c.text();
    expect(text).toContain('(dry run: nothing was changed)');
    expect(text).toMatch(/RESUME\.md\s+\d+d \d+h old \(generated 2026-11-27 18:40\); \d+ statements the disk contradicts/);
    expect(text).toMatch(/checkpoint\.md\s+updated 2026-11-28 14:03; 4 discrepancies with the disk; misses ch10/);
    expect(text).toMatch(/todo table\s+todos\.db: 4 ready/);
    expect(text).toContain('[would] checkpoint.md');
    expect(text).toContain('[would] RESUME.md');
    expect(text).toContain("rebuild ch04's summary");
    expect(text.split('\n').every((l) => l.length <= 100)).toBe(true);
    expect(r.interrupted).toBe(true);
    // Where the work stopped (issue 18 item 3): the checkpoint's Batch 2, which the disk agrees with;
    // Batch 1's lost markers are regressions (this test said Batch 1 before).
    expect(r.stop).toMatchObject({ phase: 3, batch: 2, from: 'checkpoint', disagreement: null });
    expect(r.stop.regressions.map((x) => `${x.unit} ${x.step} ${x.lost}`)).toEqual(['ch02 panel marker', 'ch04 memory entry']);
    expect(text).toContain('regressions in earlier batches: ch02 panel (marker lost); ch04 memory (entry gone)');
    expect(r.stop.lastDone).not.toBeNull();
    expect(r.stop.lastDone!.step).not.toBe('memory'); // a shared long-memory file's mtime says nothing about one step
    expect(r.halfProducts.map((p) => p.path)).toContain('drafts/ch05-draft.md');
    expect(r.memory.issues.map((i) => i.kind)).toEqual(['truncated', 'no_entry']);
    expect(r.rebuilt.map((a) => [a.target, a.done])).toEqual([
      ['checkpoint.md', false],
      ['RESUME.md', false],
      ['long memory', false],
      ['todos.db', false],
    ]);
    expect(r.plan[0]).toMatchObject({ priority: 1 });
    expect(r.plan.find((n) => n.action === 'rebuild_memory')).toMatchObject({ unit: 'ch04', step: 'memory' });
  });

  it('--json is the report as data', async () => {
    const root = copyDemo();
    const c = capture();
    await recoverCommand(parseCli(['recover', root, '--dry-run', '--json']), o, c.out);
    const j = JSON.parse(c.text());
    expect(j).toMatchObject({ dryRun: true, preset: 'book', sources: { checkpoint: { exists: true, discrepancies: 4, unknownUnits: ['ch10'] } } });
    expect(j.sources.todos.ready).toEqual(['ch03-r2', 'ch07-research', 'ch08-research', 'ch09-research']);
  });
});

describe('recover (scenario 4: everything lost)', () => {
  it('rebuilds checkpoint.md and RESUME.md from the disk, backing up what existed', async () => {
    const root = copyDemo();
    rmSync(join(root, 'checkpoint.md'));
    rmSync(join(root, 'todos.db'));
    const oldResume = readFileSync(join(root, 'RESUME.md'), 'utf8');
    const r = await recoverReport(root, { dryRun: false, now: new Date(2026, 10, 30, 10, 0) });
    expect(r.sources.checkpoint.exists).toBe(false);
    expect(r.sources.todos).toBeNull();
    const cp = r.rebuilt.find((a) => a.target === 'checkpoint.md')!;
    expect(cp).toMatchObject({ done: true, backup: null });
    expect(cp.reason).toContain('missing');
    const res = r.rebuilt.find((a) => a.target === 'RESUME.md')!;
    expect(res.done).toBe(true);
    expect(res.backup).toMatch(/^RESUME\.md\.bak\./);
    expect(readFileSync(join(root, res.backup!), 'utf8')).toBe(oldResume);
    // The rebuilt checkpoint knows the chapter only the disk knew.
    const state = await loadWorkspace(root);
    expect(state.checkpoint.exists).toBe(true);
    expect(state.discrepancies).toEqual([]);
    expect(state.cells.find((c) => c.unit === 'ch10' && c.step === 'research')!.checkpoint).toBe('done');
    // The letter keeps the old letter's language and agrees with the disk.
    const letter = readFileSync(join(root, 'RESUME.md'), 'utf8');
    expect(letter).toContain('## 未完成任务');
    expect(parseResume(letter).inProgress).toContain('ch10');
    const again = await recoverReport(root, { dryRun: true });
    expect(again.sources.resume.disagreements).toEqual([]);
    expect(again.rebuilt.filter((a) => !a.manual)).toEqual([]);
  });

  it('backs up a stale checkpoint.md before rewriting it', async () => {
    const root = copyDemo();
    const old = readFileSync(join(root, 'checkpoint.md'), 'utf8');
    const r = await recoverReport(root, { dryRun: false });
    const cp = r.rebuilt.find((a) => a.target === 'checkpoint.md')!;
    expect(cp.backup).toMatch(/^checkpoint\.md\.bak\./);
    expect(readFileSync(join(root, cp.backup!), 'utf8')).toBe(old);
    expect((await loadWorkspace(root)).discrepancies).toEqual([]);
  });
});

describe('recover on a gate-file workflow', () => {
  it('lists the last passed step, the next one, missing artifacts, failed validations and memory files', async () => {
    const root = tempDir();
    cpSync(join(DEMO, 'gates-workflow'), root, { recursive: true });
    const before = hashTree(root);
    const r = await recoverReport(root, { dryRun: false });
    expect(hashTree(root)).toEqual(before); // gate files are the state: nothing is rewritten
    expect(r.preset).toBe('gates');
    expect(r.gates).toHaveLength(1);
    const g = r.gates![0];
    expect(g).toMatchObject({ id: '1764400000-k3f9a2', lastPassed: '03', next: { number: '04', agent: 'developer' }, interrupted: ['05'] });
    expect(g.missingArtifacts.map((a) => a.name)).toEqual(['dev-manifest']);
    expect(g.failedValidations.map((f) => f.step)).toEqual(['04']);
    expect(g.memory.map((m) => [m.file.split('/').pop(), m.present])).toEqual([
      ['learnings.md', true],
      ['issues.md', false],
      ['decisions.md', true],
    ]);
    expect(r.interrupted).toBe(true);
    const c = capture();
    await recoverCommand(parseCli(['recover', root]), o, c.out);
    expect(c.text()).toContain('last passed step 03 · next 04');
    expect(c.text()).toContain('missing artifact: dev-manifest');
  });

  it('treats a malformed JSON gate as not passed and says so', async () => {
    const root = tempDir();
    cpSync(join(DEMO, 'gates-workflow'), root, { recursive: true });
    const gate = join(root, '.claude/context/history/gates/1764400000-k3f9a2/01-analyst.json');
    writeFileSync(gate, '{"validation_status": "pass", oops }');
    const r = await recoverReport(root, { dryRun: true });
    const g = r.gates![0];
    expect(g.steps.find((s) => s.number === '01')).toMatchObject({ number: '01', agent: 'analyst', status: 'partial', shape: 'malformed' });
    expect(g.warnings.find((w) => w.source.endsWith('01-analyst.json'))!.message).toMatch(/gate cannot be read .*step treated as not passed/);
    const c = capture();
    await recoverCommand(parseCli(['recover', root, '--dry-run']), o, c.out);
    expect(c.text()).toContain('01-analyst.json: gate cannot be read');
  });
});

describe('interrupted', () => {
  it('is false for a clean workspace and true once a half-product appears', async () => {
    const root = tempDir();
    const files: Record<string, string> = { ...PHASE_1_2, 'meta/chapter-summaries.md': summaries([]) };
    Object.assign(files, Object.fromEntries([doneFile('ch01', 'research')]));
    writeFiles(root, files);
    expect(interrupted(await loadWorkspace(root))).toBe(false);
    expect(interrupted(await loadWorkspace(root), { disagreements: ['RESUME.md says ch01 is not started; disk shows it in progress'] })).toBe(true);
    writeFiles(root, { 'drafts/ch01-draft.md': '# ch01\n\nhalf' });
    expect(interrupted(await loadWorkspace(root))).toBe(true);
  });
});

describe('resume command', () => {
  it('prints the letter, and --write writes it', async () => {
    const root = copyDemo();
    const c = capture();
    expect(await resumeCommand(parseCli(['resume', root]), o, c.out)).toBe(0);
    expect(c.text()).toContain('# 深入 SQLite：从页到查询 — 恢复指南');
    expect(c.text()).toContain('3. ch04 memory — 状态: — not_started — 优先级: 高');
    expect(readFileSync(join(root, 'RESUME.md'), 'utf8')).toContain('生成时间: 2026-11-27 18:40'); // preview wrote nothing
    const w = capture();
    await resumeCommand(parseCli(['resume', root, '--write']), o, w.out);
    expect(w.text()).toMatch(/^wrote RESUME\.md; the previous version is in RESUME\.md\.bak\.\d{8}-\d{6}\n$/);
    expect(readFileSync(join(root, 'RESUME.md'), 'utf8')).toContain('## 已知问题');
    await expect(resumeCommand(parseCli(['resume', root, 'extra']), o, capture().out)).rejects.toThrow(UsageError);
  });
});

describe('backups command', () => {
  it('lists backups newest first, then restores one while keeping both versions', async () => {
    const root = tempDir();
    writeFiles(root, {
      'drafts/ch05-draft.md': 'current\nversion\n',
      'drafts/ch05-draft.md.bak.20261128-140000': 'oldest\n',
      'drafts/ch05-draft.md.bak.20261129-090000': 'newer\nversion\nwith more\n',
    });
    const c = capture();
    expect(await backupsCommand(parseCli(['backups', root, 'drafts/ch05-draft.md']), o, c.out)).toBe(0);
    const lines = c.text().split('\n');
    expect(lines[0]).toBe('Backups of drafts/ch05-draft.md (2)');
    expect(lines[1]).toMatch(/ch05-draft\.md\.bak\.20261129-090000\s+24 B .* vs current: \+1 -2 lines/);
    expect(lines[2]).toMatch(/ch05-draft\.md\.bak\.20261128-140000\s+7 B .* vs current: \+2 -1 lines/);

    const r = capture();
    expect(await backupsCommand(parseCli(['backups', root, 'drafts/ch05-draft.md', '--restore', 'ch05-draft.md.bak.20261128-140000']), o, r.out)).toBe(0);
    const replaced = /the version it replaced is in (\S+)/.exec(r.text())![1];
    expect(r.text()).toContain('restored drafts/ch05-draft.md from drafts/ch05-draft.md.bak.20261128-140000');
    expect(readFileSync(join(root, 'drafts/ch05-draft.md'), 'utf8')).toBe('oldest\n');
    expect(readFileSync(join(root, replaced), 'utf8')).toBe('current\nversion\n');
    expect(existsSync(join(root, 'drafts/ch05-draft.md.bak.20261128-140000'))).toBe(true);

    const j = capture();
    await backupsCommand(parseCli(['backups', root, 'drafts/ch05-draft.md', '--json']), o, j.out);
    expect(JSON.parse(j.text()).backups).toHaveLength(3);
  });

  it('refuses bad usage with a UsageError and a missing backup with exit code 1', async () => {
    const root = tempDir();
    writeFiles(root, { 'a.md': 'x\n' });
    await expect(backupsCommand(parseCli(['backups']), o, capture().out)).rejects.toThrow(/needs a file/);
    await expect(backupsCommand(parseCli(['backups', root, 'a.md', '--restore', 'b.md.bak.20261128-140000']), o, capture().out)).rejects.toThrow(/backup of b\.md, not of a\.md/);
    const c = capture();
    expect(await backupsCommand(parseCli(['backups', root, 'a.md', '--restore', 'a.md.bak.20261128-140000']), o, c.out)).toBe(1);
    expect(c.text()).toMatch(/does not exist/);
    expect(readFileSync(join(root, 'a.md'), 'utf8')).toBe('x\n');
  });
});
