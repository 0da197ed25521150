import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, openSync, closeSync, ftruncateSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, CONFIG_MAX_BYTES, loadConfig } from '../../../src/pipeline/config/config.js';
import { formatBytes, readTextCapped } from '../../../src/fs/read-capped.js';
import { RESUME_MAX_BYTES, resumeDrift } from '../../../src/resume/io.js';
import { readCheckpoint, CHECKPOINT_MAX_BYTES } from '../../../src/checkpoint/io.js';
import { markCell } from '../../../src/run/attempt/launch-checkpoint.js';
import { appendJournal, journalPath, JOURNAL_MAX_LINE_BYTES, JOURNAL_WARNINGS_LISTED, parseJournal, readJournal } from '../../../src/run/journal/journal.js';
import { bookPreset } from '../../../src/pipeline/book-preset.js';
import { loadWorkspace } from '../../../src/workspace.js';
import { recoverReport } from '../../../src/recover/report.js';
import { renderRecover } from '../../../src/recover/render.js';
import { PHASE_1_2, summaries, tempDir, writeFiles } from '../../helpers/workspace.js';

// Issue 8 item 7: bounded input. Each file checkroom reads whole has a cap checked before a
// byte is read, and a message that says which file, its size, the cap and what to do.
// Sparse files stand in for huge ones: their size is real, their reading would be slow.

const sparse = (path: string, size: number): void => {
  const fd = openSync(path, 'w');
  try {
    ftruncateSync(fd, size);
  } finally {
    closeSync(fd);
  }
};

const plain = { paint: (_t: string, s: string) => s, ascii: true, width: 200 };

describe('size caps', () => {
  it('refuses a 55 MB checkroom.yaml before reading it, naming the file, its size, the cap and what to do', async () => {
    const root = tempDir();
    sparse(join(root, 'checkroom.yaml'), 55 * 1024 * 1024);
    const err = await loadConfig(root).then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    const msg = (err as ConfigError).message;
    expect(msg).toContain(join(root, 'checkroom.yaml'));
    expect(msg).toContain('55 MB');
    expect(msg).toContain(`${55 * 1024 * 1024} bytes`);
    expect(msg).toContain(`${formatBytes(CONFIG_MAX_BYTES)} cap`);
    expect(msg).toContain('a pipeline definition is a few KB');
  });

  it('a config at the cap is still read', async () => {
    const root = tempDir();
    const head = 'name: big\n';
    writeFileSync(join(root, 'checkroom.yaml'), head + '#'.repeat(CONFIG_MAX_BYTES - head.length - 1) + '\n');
    expect((await loadConfig(root)).pipeline.name).toBe('big');
  });

  it('readTextCapped stops at the cap even for a file that is larger than its first stat said', async () => {
    const root = tempDir();
    const f = join(root, 'x');
    writeFileSync(f, 'a'.repeat(100));
    expect(await readTextCapped(f, 100)).toEqual({ ok: true, text: 'a'.repeat(100), size: 100 });
    expect(await readTextCapped(f, 99)).toEqual({ ok: false, size: 100, cap: 99 });
  });

  it('an oversized RESUME.md is not read; the drift says its size, the cap and to write a fresh letter', async () => {
    const root = tempDir();
    writeFiles(root, PHASE_1_2);
    sparse(join(root, 'RESUME.md'), 3 * RESUME_MAX_BYTES);
    const state = await loadWorkspace(root);
    const d = await resumeDrift(root, state);
    expect(d.parsed).toBeNull();
    expect(d.disagreements[0]).toMatch(/^RESUME\.md is 3 MB \(3145728 bytes\), over checkroom's 1 MB cap for this file; it was not read: write a fresh letter with checkroom resume --write/);
  });

  it('an oversized checkpoint.md is parsed only up to its cap, and the warning says what to do', async () => {
    const root = tempDir();
    writeFileSync(join(root, 'checkpoint.md'), `# p — checkpoint\n${`${'x'.repeat(1023)}\n`.repeat(CHECKPOINT_MAX_BYTES / 256)}`);
    const doc = await readCheckpoint(root, bookPreset());
    expect(doc?.warnings[0].message).toContain('16 MB');
    expect(doc?.warnings[0].message).toContain('rebuild it from the disk with checkroom checkpoint --write');
  });

  it('a launch never edits an oversized checkpoint.md in place: it is backed up and rebuilt from the disk', async () => {
    const root = tempDir();
    writeFiles(root, { ...PHASE_1_2, 'meta/chapter-summaries.md': summaries([]), 'checkroom.yaml': 'units: { list: [ch01] }\n' });
    const big = `# p — 项目进度检查点\n\n${'x'.repeat(CHECKPOINT_MAX_BYTES)}\n`;
    writeFileSync(join(root, 'checkpoint.md'), big);
    const config = await loadConfig(root);
    const r = await markCell(root, config, 'ch01', 'research', 'in_progress', Date.UTC(2026, 0, 2));
    expect(r.rebuilt).toMatch(/^checkpoint\.md is 4 MB, over the 4 MB cap: rebuilt checkpoint\.md from the disk/);
    expect(readFileSync(join(root, 'checkpoint.md'), 'utf8').length).toBeLessThan(10_000);
    const backups = (await import('node:fs')).readdirSync(root).filter((f) => f.startsWith('checkpoint.md.bak.'));
    expect(backups).toHaveLength(1);
    expect(readFileSync(join(root, backups[0]), 'utf8')).toBe(big);
  });
});

describe('journal: caps and unreadable lines', () => {
  const good = (at: number) => JSON.stringify({ v: 1, at, type: 'autopilot', on: true, reason: 'operator' });

  it('past its cap only the newest part is read, from a whole line, with a warning that says how to archive', async () => {
    const root = tempDir();
    mkdirSync(join(root, '.checkroom'));
    const lines = Array.from({ length: 1000 }, (_, i) => good(i));
    writeFileSync(journalPath(root), lines.join('\n') + '\n');
    const cap = Buffer.byteLength(lines.slice(-10).join('\n') + '\n') + 5;
    const r = await readJournal(root, { maxBytes: cap });
    expect(r.events.map((e) => e.at)).toEqual(Array.from({ length: 10 }, (_, i) => 990 + i));
    expect(r.warnings).toHaveLength(1);
    expect(r.warnings[0]).toMatch(/^\.checkroom\/journal\.jsonl is 0 MB \(\d+ bytes\), over checkroom's 0 MB cap; only its last 0 MB were read/);
    expect(r.warnings[0]).toContain('move it to .checkroom/journal-<date>.jsonl');
  });

  it('an oversized line is skipped without being held, counted and reported; the next line is read', () => {
    const huge = 'x'.repeat(JOURNAL_MAX_LINE_BYTES + 10);
    const r = parseJournal(`${good(1)}\n${huge}\n${good(2)}\n`);
    expect(r.events.map((e) => e.at)).toEqual([1, 2]);
    expect(r.warnings).toEqual([`journal line 2: ${huge.length} characters, over the ${JOURNAL_MAX_LINE_BYTES} cap for one event, ignored`]);
  });

  it('thousands of garbage lines give a bounded list of warnings that still counts every one', () => {
    const text = [good(1), ...Array.from({ length: 5000 }, () => 'garbage'), good(2)].join('\n') + '\n';
    const r = parseJournal(text);
    expect(r.events).toHaveLength(2);
    expect(r.warnings).toHaveLength(JOURNAL_WARNINGS_LISTED + 1);
    expect(r.warnings.at(-1)).toBe(`journal lines ${JOURNAL_WARNINGS_LISTED + 2}-5001: ${5000 - JOURNAL_WARNINGS_LISTED} more unreadable lines, ignored (kept in the file)`);
  });

  it('checkroom recover lists the unreadable lines, and an append keeps every byte of them', async () => {
    const root = tempDir();
    writeFiles(root, { ...PHASE_1_2, 'meta/chapter-summaries.md': summaries([]) });
    await appendJournal(root, { type: 'autopilot', at: 1, on: true, reason: 'operator' });
    appendFileSync(journalPath(root), 'not json \u001b[31mred\n{"v":1,"at":2,"type":"teleport"}\n{"v":1,"at":3,"type":"aut');
    const before = readFileSync(journalPath(root));
    const report = await recoverReport(root, { dryRun: true, now: new Date(Date.UTC(2026, 0, 2)) });
    const text = renderRecover(report, plain);
    expect(text).toContain('3 warnings');
    expect(text).toContain('! journal line 2: not JSON, ignored');
    expect(text).toContain('! journal line 3: unknown event type "teleport", ignored');
    expect(text).toContain('! journal line 4: torn last line (25 chars), ignored');
    expect(text).not.toContain('\u001b');
    await appendJournal(root, { type: 'autopilot', at: 4, on: false, reason: 'operator' });
    const after = readFileSync(journalPath(root));
    expect(after.subarray(0, before.length).equals(before)).toBe(true);
  });
});

describe('a FIFO named like a capped file', () => {
  it('checkroom.yaml as a FIFO is refused at once, not waited on', async () => {
    const root = tempDir();
    spawnSync('mkfifo', [join(root, 'checkroom.yaml')]);
    const err = await loadConfig(root).then(() => null, (e: unknown) => e);
    expect((err as ConfigError).message).toContain('it is not a regular file');
  });
});
