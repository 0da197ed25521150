import { describe, expect, it } from 'vitest';
import { closeSync, openSync, readFileSync, writeSync, ftruncateSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { EXACT_COUNT_BYTES, readFileFacts } from '../../../src/scan/file-facts.js';
import { scanStep } from '../../../src/scan/scan.js';
import { bookPreset } from '../../../src/pipeline/book-preset.js';
import { triageUnmarked } from '../../../src/triage/triage.js';
import { loadWorkspace } from '../../../src/workspace.js';
import { tempDir, writeFiles, PHASE_1_2, summaries } from '../../helpers/workspace.js';

// Issue 8 item 3: character counts stop at what a verdict needs, so a huge or sparse file
// never makes a scan read it whole. Bytes are counted twice: through the reader (exact) and
// through /proc/self/io (whatever the process read, by any path).

const GB = 1024 ** 3;
const MB = 1024 ** 2;

/** A sparse file of `size` bytes (as `truncate -s` makes), optionally ending in `end`. */
function sparse(path: string, size: number, end = ''): void {
  const fd = openSync(path, 'w');
  try {
    ftruncateSync(fd, size);
    if (end) writeSync(fd, Buffer.from(end), 0, Buffer.byteLength(end), size - Buffer.byteLength(end));
  } finally {
    closeSync(fd);
  }
}

const rchar = (): number | null => {
  try {
    return Number(/rchar:\s*(\d+)/.exec(readFileSync('/proc/self/io', 'utf8'))![1]);
  } catch {
    return null;
  }
};

describe('bounded reads (issue 8 item 3)', () => {
  it('reads a few MB of a 10 GB sparse file, and calls it binary', () => {
    const root = tempDir();
    const p = join(root, 'huge.md');
    sparse(p, 10 * GB);
    let read = 0;
    const f = readFileFacts(p, 'huge.md', 'DRAFT_COMPLETE', { onRead: (n) => (read += n) });
    expect(f.bytes).toBe(10 * GB);
    expect(f.marker).toBe(false);
    expect(f.error).toContain('binary');
    expect(read).toBeLessThan(EXACT_COUNT_BYTES + 2 * MB);
  });

  it('finds the marker at the end of a 10 GB file without reading it, and says the count is a lower bound', () => {
    const root = tempDir();
    const p = join(root, 'huge.md');
    // Text first (no NULs in the first read), then a hole, then the marker.
    const fd = openSync(p, 'w');
    writeSync(fd, Buffer.from(`# Huge\n\n${'文'.repeat(2 * MB)}\n`));
    closeSync(fd);
    const tail = `\n${'The end.\n'.repeat(10)}\n<!-- DRAFT_COMPLETE -->\n\n\n`;
    const fd2 = openSync(p, 'r+');
    ftruncateSync(fd2, 10 * GB);
    writeSync(fd2, Buffer.from(tail), 0, Buffer.byteLength(tail), 10 * GB - Buffer.byteLength(tail));
    closeSync(fd2);
    let read = 0;
    const before = rchar();
    const f = readFileFacts(p, 'huge.md', 'DRAFT_COMPLETE', { onRead: (n) => (read += n) });
    const after = rchar();
    expect(f.marker).toBe(true);
    expect(f.charsAtLeast).toBe(true);
    expect(f.chars).toBeGreaterThanOrEqual(EXACT_COUNT_BYTES / 4);
    expect(read).toBeLessThan(EXACT_COUNT_BYTES + 2 * MB);
    if (before !== null && after !== null) expect(after - before).toBeLessThan(64 * MB);
  });

  it('says "at least" in the reason when the count stopped early', () => {
    const root = tempDir();
    const p = join(root, 'big.md');
    writeFiles(root, { 'big.md': `${'The pager writes pages. '.repeat(EXACT_COUNT_BYTES / 12)}\nThe pager writes each page to the\n` });
    const t = triageUnmarked(readFileFacts(p, 'big.md', 'DRAFT_COMPLETE'));
    expect(t.verdict).toBe('truncated');
    expect(t.reason).toMatch(/^at least \d+ characters/);
  });

  it('counts on when a step needs more characters than the bounded count saw (min_chars)', () => {
    const root = tempDir();
    const body = 'a'.repeat(EXACT_COUNT_BYTES + 3 * MB);
    writeFiles(root, { 'big.md': body });
    const f = readFileFacts(join(root, 'big.md'), 'big.md', null, { need: body.length });
    expect(f.chars).toBe(body.length);
    expect(f.charsAtLeast).toBeUndefined();
  });

  it('keeps the live path (scanStep) bounded on a 10 GB sparse draft', () => {
    const root = tempDir();
    mkdirSync(join(root, 'drafts'));
    sparse(join(root, 'drafts/ch01-draft.md'), 10 * GB, `${'文。'.repeat(200)}\n`);
    const step = bookPreset().steps.find((s) => s.id === 'draft')!;
    const before = rchar();
    const f = scanStep(root, step, 'ch01');
    const after = rchar();
    expect(f.bytes).toBe(10 * GB);
    if (before !== null && after !== null) expect(after - before).toBeLessThan(64 * MB);
  });

  it('loads a workspace with a 10 GB sparse artifact without reading it whole', async () => {
    const root = tempDir();
    writeFiles(root, { ...PHASE_1_2, 'meta/chapter-summaries.md': summaries([]) });
    mkdirSync(join(root, 'research'), { recursive: true });
    sparse(join(root, 'research/ch01-research.md'), 10 * GB);
    const before = rchar();
    const s = await loadWorkspace(root);
    const after = rchar();
    const cell = s.cells.find((c) => c.unit === 'ch01' && c.step === 'research')!;
    expect(cell.bytes).toBe(10 * GB);
    expect(cell.marker).toBe(false);
    if (before !== null && after !== null) expect(after - before).toBeLessThan(128 * MB);
  });
});

describe('a lower-bound count is said as one (issue 8 item 3)', () => {
  it('marks the cell, the cell detail and the JSON when chars is a lower bound', async () => {
    const root = tempDir();
    writeFiles(root, { ...PHASE_1_2, 'meta/chapter-summaries.md': summaries([]), 'research/ch01-research.md': `${'a'.repeat(EXACT_COUNT_BYTES + MB)}.\n\n<!-- RESEARCH_COMPLETE -->\n` });
    const s = await loadWorkspace(root);
    const cell = s.cells.find((c) => c.unit === 'ch01' && c.step === 'research')!;
    expect(cell).toMatchObject({ marker: true, charsAtLeast: true });
    const { statusJson } = await import('../../../src/cli/json.js');
    const json = JSON.parse(JSON.stringify(statusJson(s))) as ReturnType<typeof statusJson>;
    expect(json.cells.find((c) => c.unit === 'ch01' && c.step === 'research')!.charsAtLeast).toBe(true);
    expect(json.cells.find((c) => c.unit === 'ch01' && c.step === 'draft')!.charsAtLeast).toBeUndefined();
  });
});
