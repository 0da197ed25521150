import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { EXACT_COUNT_BYTES, FIRST_READ, readFileFacts, TAIL_BYTES, type FactsOptions } from '../../../src/scan/file-facts.js';
import { BLANK_MAX, bufferReader, findLastLine } from '../../../src/scan/last-line.js';
import { triageUnmarked } from '../../../src/triage/triage.js';
import { tempDir, prose } from '../../helpers/workspace.js';

// Issue 8 item 3, "a false done": whether a file is marked must not depend on where a read
// window starts. The oracle below decodes the whole text and takes the last non-blank line.

const M = 'DRAFT_COMPLETE';
const LINE = `<!-- ${M} -->`;

const facts = (content: string | Buffer, opts: FactsOptions = {}) => {
  const root = tempDir();
  writeFileSync(join(root, 'f.md'), content);
  return readFileFacts(join(root, 'f.md'), 'f.md', M, opts);
};

/** The whole text, decoded: is its last non-blank line (ASCII blanks) the marker? */
const oracle = (text: string): boolean => {
  const lines = text.split('\n').filter((l) => l.replace(/[ \t\r\v\f]/g, '') !== '');
  const last = (lines.at(-1) ?? '').replace(/^\uFEFF/, '').trim();
  return /^<!--\s*DRAFT_COMPLETE\s*-->$/.test(last);
};

describe('the last non-blank line, exactly (issue 8 item 3)', () => {
  it('does not count a marker at the end of a prose line when a blank run fills the tail window', () => {
    // The blank run is sized so the old 8 KB tail window started exactly at `<!--`.
    const text = `# T\n\n${prose(300)}\nThe chapter ends here. ${LINE}${'\n'.repeat(TAIL_BYTES - LINE.length)}`;
    const f = facts(text);
    expect(f.marker).toBe(false);
    expect(triageUnmarked(f).reason).not.toContain('only the marker is missing');
  });

  it('counts a real marker followed by a blank run longer than any window', () => {
    expect(facts(`# T\n\n${prose(300)}\n${LINE}\n${' \n\r\n\t'.repeat(10_000)}`).marker).toBe(true);
    expect(facts(`# T\r\n\r\n${prose(300)}\r\n${LINE}${'\r\n'.repeat(30_000)}`).marker).toBe(true);
  });

  it('finds the same line in a file larger than the first read', () => {
    const big = `${'数据库'.repeat(FIRST_READ / 3)}\n`;
    expect(facts(`${big}${LINE}\n${'\n'.repeat(3 * TAIL_BYTES)}`).marker).toBe(true);
    expect(facts(`${big}text ${LINE}${'\n'.repeat(TAIL_BYTES - LINE.length)}`).marker).toBe(false);
  });

  it('gives triage the text that ends at the last non-blank line, not a window of blanks', () => {
    const t = triageUnmarked(facts(`# T\n\n${prose(300)}\nThe pager writes each page to the${'\n'.repeat(5 * TAIL_BYTES)}`));
    expect(t.verdict).toBe('truncated');
    expect(t.reason).toContain('dangling word');
  });

  it('property: markers, blank runs and CJK text across every window boundary agree with the whole-text oracle', () => {
    const piece = fc.oneof(
      fc.constantFrom('文', '数据', '。', 'a', 'the end.', '😀', ' ', '\t', '\n', '\r\n', LINE, `x ${LINE}`, '<!--', '-->', M, '\uFEFF'),
      fc.string({ unit: fc.constantFrom('文', 'b', ' ', '\n', '\r', '<', '!', '-', '>'), maxLength: 12 }),
    );
    const blanks = fc.array(fc.constantFrom(' ', '\t', '\n', '\r\n', '\v', '\f'), { maxLength: 40 }).map((a) => a.join(''));
    const ending = fc.constantFrom('', `\n${LINE}`, `\r\n${LINE}`, ` ${LINE}`, `\n  ${LINE}  `, `\n${LINE}\nmore.`);
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 30 }), ending, blanks, fc.integer({ min: 1, max: 40 }), (parts, end, tail, window) => {
        const text = `${parts.join('')}${end}${tail}`;
        const data = Buffer.from(text);
        const last = findLastLine(bufferReader(data), data.length, window);
        const got = last.text !== null && /^<!--\s*DRAFT_COMPLETE\s*-->$/.test(last.text.toString('utf8').replace(/^\uFEFF/, '').trim());
        expect(got).toBe(oracle(text));
      }),
      { numRuns: 400 },
    );
  });

  it('property: readFileFacts agrees with the oracle for any window, on real files', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom('文', 'x', ' ', '\n', '\r\n', '。'), maxLength: 200 }),
        fc.constantFrom(`\n${LINE}`, ` ${LINE}`, '', `\n${LINE}\n文。`),
        fc.integer({ min: 0, max: 300 }),
        fc.integer({ min: 1, max: 64 }),
        (body, end, blankRun, window) => {
          const text = `${body}${end}${'\n'.repeat(blankRun)}`;
          expect(facts(text, { window }).marker).toBe(oracle(text));
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe('a BOM is not a character (issue 8 item 6)', () => {
  it('counts a file of a BOM and 99 characters as 99, under the threshold', () => {
    const f = facts(`\uFEFF${'字'.repeat(98)}。`);
    expect(f.chars).toBe(99);
    expect(triageUnmarked(f).verdict).toBe('almost_certainly_partial');
  });

  it('still counts a BOM-less file of 100 characters as 100', () => {
    expect(facts(`${'字'.repeat(99)}。`).chars).toBe(100);
  });

  it('does not count the BOM of a file larger than the first read', () => {
    const body = 'a'.repeat(FIRST_READ + 10);
    expect(facts(`\uFEFF${body}`).chars).toBe(body.length);
  });
});

describe('a blank run past any bound (issue 8 item 3)', () => {
  it('reads at most the bound, calls the file not done, and says why', () => {
    let read = 0;
    const f = facts(`# T\n\n${prose(300)}\n${LINE}\n${'\n'.repeat(17 * 1024 * 1024)}`, { onRead: (n) => (read += n) });
    expect(f.marker).toBe(false);
    expect(f.error).toContain('MB of blank lines');
    expect(read).toBeLessThan(BLANK_MAX + EXACT_COUNT_BYTES + 2 * 1024 * 1024);
    expect(triageUnmarked(f).reason).not.toContain('only the marker is missing');
  });
});
