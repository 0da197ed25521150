import { describe, expect, it } from 'vitest';
import stringWidth from 'string-width';
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, readFileSync, readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { NOBODY, runAsNobody } from '../../helpers/nobody.js';
import { REPO, tempDir, writeFiles, PHASE_1_2, summaries, prose, marked, copyDemo } from '../../helpers/workspace.js';
import { parseCheckpoint } from '../../../src/checkpoint/parse.js';
import { bookPreset } from '../../../src/pipeline/book-preset.js';
import type { StatusJson } from '../../../src/cli/json.js';

// The command line as a user meets it: the real built binary, real files, exit codes.

const CLI = join(REPO, 'dist/src/cli.js');
const run = (args: string[], env: NodeJS.ProcessEnv = {}) => {
  const r = spawnSync('node', [CLI, ...args], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '', ...env }, input: '' });
  return { code: r.status, out: r.stdout, err: r.stderr };
};

describe('checkroom CLI', () => {
  it('prints help and exits 0', () => {
    const r = run(['--help']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('checkroom status [dir] [--json]');
  });

  it('exits 2 on bad usage and on a missing workspace', () => {
    expect(run(['status', '--bogus']).code).toBe(2);
    const r = run(['status', '/nonexistent/dir']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('no such directory');
  });

  it('exits 2 with file:line:column on a bad config', () => {
    const root = tempDir();
    writeFiles(root, { 'checkroom.yaml': 'steps:\n  - id: draft\n    dependson: [research]\n' });
    const r = run(['status', root]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/checkroom\.yaml:3:5: unknown key "dependson"/);
  });

  it('prints the status summary when not on a terminal, without colour under NO_COLOR', () => {
    const root = copyDemo();
    const r = run([root], { NO_COLOR: '1' });
    expect(r.code).toBe(0);
    expect(r.out).toContain('Phase 3');
    expect(r.out).toContain('Next');
    expect(r.out).not.toContain('\u001b[');
    expect(r.out.split('\n').length).toBeLessThanOrEqual(40);
  });

  it('plan and partials have human and JSON faces', () => {
    const root = copyDemo();
    const plan = JSON.parse(run(['plan', root, '--json']).out);
    expect(plan[0]).toHaveProperty('priority');
    expect(run(['plan', root]).out).toMatch(/P1|P2|P3/);
    const partials = JSON.parse(run(['partials', root, '--json']).out);
    expect(partials.partials.length).toBeGreaterThan(0);
    expect(run(['partials', root]).out).toContain('Half-products');
  });

  it('rebuilds checkpoint.md from the disk, backing up the old one (scenario 4 and stale files)', () => {
    const root = tempDir();
    writeFiles(root, {
      ...PHASE_1_2,
      'meta/chapter-summaries.md': summaries([]),
      'research/ch01-research.md': marked(`# R\n\n${prose(300)}`, 'RESEARCH_COMPLETE'),
      'drafts/ch01-draft.md': `# D\n\n${prose(300)}`,
    });
    const r = run(['checkpoint', root, '--write']);
    expect(r.code).toBe(0);
    const doc = parseCheckpoint(readFileSync(join(root, 'checkpoint.md'), 'utf8'), bookPreset());
    // No old file: the workspace's own text decides, and prose() is Han (issue 8 item 6: a
    // rebuilt checkpoint.md came out in English for a Chinese workspace).
    expect(doc.lang).toBe('zh');
    const row = doc.batches.flatMap((b) => b.rows).find((x) => x.unit === 'ch01')!;
    expect(row.claims).toMatchObject({ research: 'done', draft: 'in_progress', r1: 'not_started' });
    // A second rewrite keeps the first file as a backup.
    expect(run(['checkpoint', root, '--write']).code).toBe(0);
    expect(readdirSync(root).filter((n) => n.startsWith('checkpoint.md.bak.'))).toHaveLength(1);
  });

  it('keeps the language of the checkpoint it replaces', () => {
    const root = copyDemo();
    expect(run(['checkpoint', root, '--write']).code).toBe(0);
    const text = readFileSync(join(root, 'checkpoint.md'), 'utf8');
    expect(text).toContain('项目进度检查点');
    expect(text).toContain('| 章节 |');
  });

  it('says what is wrong when a file cannot be read (non-root user), and never offers to redo it', () => {
    const root = tempDir();
    writeFiles(root, { ...PHASE_1_2, 'meta/chapter-summaries.md': summaries([]), 'drafts/ch01-draft.md': `# D\n\n${prose(300)}` });
    chmodSync(join(root, 'drafts/ch01-draft.md'), 0o000);
    chmodSync(root, 0o755);
    chownSync(root, NOBODY, NOBODY);
    const r = runAsNobody([process.execPath, CLI, 'status', root, '--json']);
    if (!r) return; // no runuser here: nothing to prove
    expect(r.status).toBe(0);
    const s = JSON.parse(r.stdout) as StatusJson;
    // Not a half-product (nothing to back up and redo): its state is unknown, a human must look.
    expect(s.partials.map((p) => p.path)).not.toContain('drafts/ch01-draft.md');
    expect(s.cells.find((c) => c.unit === 'ch01' && c.step === 'draft')).toMatchObject({ status: 'needs_human', disk: 'unreadable' });
    expect(s.next.find((n) => n.unit === 'ch01' && n.step === 'draft')).toMatchObject({ action: 'human_review' });
    expect(s.next.find((n) => n.unit === 'ch01' && n.step === 'draft')!.reason).toContain('permission denied');
    expect(JSON.stringify(s.warnings)).toContain('drafts/ch01-draft.md: permission denied');
    expect(existsSync(join(root, 'drafts/ch01-draft.md'))).toBe(true);
  });

  it('says no chapter was found, and why, instead of "nothing to do" when units.pattern matches nothing', () => {
    const root = copyDemo();
    writeFiles(root, { 'checkroom.yaml': `${readFileSync(join(root, 'checkroom.yaml'), 'utf8')}units: { pattern: 'chapter-\\d+' }\n` });
    const plan = run(['plan', root]);
    expect(plan.code).toBe(0);
    expect(plan.out).toMatch(/^no chapters found: units\.pattern 'chapter-\\d\+' matches no unit; checkpoint\.md names ch01/);
    expect(plan.out).not.toContain('Nothing to do');
    const status = run(['status', root], { COLUMNS: '200' });
    expect(status.out).toContain('no chapters found');
    expect((JSON.parse(run(['status', root, '--json']).out) as StatusJson).warnings.map((w) => w.message).join('\n')).toContain("units.pattern 'chapter-\\d+' matches no unit");
  });

  it('piped output follows COLUMNS when it is set', () => {
    const root = copyDemo();
    const widest = (out: string) => Math.max(...out.split('\n').map((l) => stringWidth(l)));
    expect(widest(run(['plan', root], { COLUMNS: '80' }).out)).toBeLessThanOrEqual(80);
    // status too: the progress bar gives way and the phase list wraps instead of running over.
    expect(widest(run(['status', root], { COLUMNS: '80' }).out)).toBeLessThanOrEqual(80);
    const wide = run(['plan', root], { COLUMNS: '200' }).out;
    expect(widest(wide)).toBeGreaterThan(80);
    expect(widest(wide)).toBeLessThanOrEqual(200);
  });

  // `checkroom plan | cat` used to be cut to 80 columns: a pipe has no width, so without
  // COLUMNS every text command gives whole lines (docs/commands.md, Piped output).
  it('piped output without COLUMNS is never cut: plan, status, partials and history give whole lines', () => {
    const root = copyDemo();
    const long = 'ch03-a-chapter-whose-name-runs-on-and-on-well-past-the-edge-of-any-screen';
    writeFiles(root, {
      'checkroom.yaml': readFileSync(join(root, 'checkroom.yaml'), 'utf8').replace(/^preset: book$/m, "preset: book\nunits: { pattern: 'ch\\d\\d(-[a-z]+)*' }"),
      [`research/${long}-research.md`]: '# cut short\n',
    });
    const plan = run(['plan', root]);
    expect(plan.code).toBe(0);
    const json = JSON.parse(run(['plan', root, '--json']).out) as { unit: string; reason: string }[];
    const mine = json.find((n) => n.unit === long)!;
    expect(mine).toBeDefined();
    // Every step's reason appears whole in the text, the long unit's on one line with its name.
    for (const n of json) expect(plan.out).toContain(n.reason);
    expect(plan.out.split('\n').some((l) => l.includes(long) && l.includes(mine.reason))).toBe(true);
    expect(plan.out).not.toMatch(/…$/m);
    const status = run(['status', root]).out;
    expect(status.split('\n').some((l) => l.startsWith(`${long} `))).toBe(true);
    const partials = run(['partials', root]).out;
    expect(partials).toContain(`research/${long}-research.md`);
    for (const args of [['history', root], ['status', root], ['partials', root], ['plan', root]]) {
      const r = run(args);
      expect(r.code).toBe(0);
      expect(r.out).not.toMatch(/…$/m);
    }
  });

  it('never lets escape sequences from a file reach the terminal', () => {
    const root = tempDir();
    const hostile = `# D\n\n${prose(300)}\n\nclipboard \u001b]52;c;cm0gLXJmIH4=\u0007 title \u001b]0;pwned\u0007 clear \u001b[2J back\b\b bell\u0007 cr\rover`;
    writeFiles(root, { ...PHASE_1_2, 'meta/chapter-summaries.md': summaries([]), 'drafts/ch01-draft.md': hostile });
    // checkpoint.md's own words (its title carries the project name) too, in the preview.
    writeFiles(root, { 'checkpoint.md': `# \u001b]0;TITLE\u0007\u001b[31mRED — 项目进度检查点\n` });
    for (const args of [['partials', root], ['plan', root], ['status', root], ['checkpoint', root]]) {
      const r = run(args, { NO_COLOR: '1' });
      expect(r.code).toBe(0);
      expect(r.out).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
    }
    // And error messages that quote an argument.
    const bad = run(['status', join(root, 'nope\u001b[2J')]);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('nope\\e[2J');
    expect(bad.err).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
    // The reason quotes the file's last line, escaped (JSON keeps it whole).
    const reason = JSON.parse(run(['partials', root, '--json']).out).partials[0].reason as string;
    expect(reason).toContain('cr\\rover');
    expect(reason).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
  });
});
