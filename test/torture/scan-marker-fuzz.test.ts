import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { FIRST_READ, readFileFacts } from '../../src/scan/file-facts.js';
import { bufferReader, findLastLine, LINE_MAX } from '../../src/scan/last-line.js';
import { tempDir } from '../helpers/workspace.js';

// Torture (issue 8 item 9): marker fuzzing across read windows. Every generated file is
// checked against an oracle that decodes the whole text; the window is tiny so markers,
// CRLF pairs, blank runs and multi-byte characters land on every boundary.

const M = 'R2_CONSISTENCY_REVIEW_COMPLETE';
const LINE = `<!-- ${M} -->`;
const MARKER_RE = new RegExp(`^<!--\\s*${M}\\s*-->$`);

const oracle = (text: string): boolean => {
  const lines = text.split('\n').filter((l) => l.replace(/[ \t\r\v\f]/g, '') !== '');
  const last = (lines.at(-1) ?? '').replace(/^\uFEFF/, '').trim();
  return last.length <= LINE_MAX && MARKER_RE.test(last);
};

const cjk = fc.constantFrom('文', '数据库', 'ページ', '😀', 'é', '。', '、', '\u3000');
const ascii = fc.constantFrom('a', 'The end.', '<!--', '-->', '<!-- ', M, 'REVIEW_COMPLETE', '<!-- REVIEW_COMPLETE -->', '-');
const blank = fc.constantFrom(' ', '\t', '\n', '\r\n', '\r', '\v', '\f');
const chunk = fc.oneof(cjk, ascii, blank, fc.constant(LINE), fc.constant(`\n${LINE}\n`));
const text = fc.array(chunk, { maxLength: 60 }).map((a) => a.join(''));

describe('torture: marker fuzzing across windows', () => {
  it('findLastLine agrees with the whole-text oracle for windows of 1..17 bytes', () => {
    fc.assert(
      fc.property(text, fc.array(blank, { maxLength: 80 }), fc.integer({ min: 1, max: 17 }), (t, tail, window) => {
        const s = `${t}${tail.join('')}`;
        const data = Buffer.from(s);
        const last = findLastLine(bufferReader(data), data.length, window);
        const got = last.text !== null && MARKER_RE.test(last.text.toString('utf8').replace(/^\uFEFF/, '').trim());
        expect(got).toBe(oracle(s));
        // The line found is the oracle's line, byte for byte.
        const lines = s.split('\n').filter((l) => l.replace(/[ \t\r\v\f]/g, '') !== '');
        if (last.text) expect(last.text.toString('utf8')).toBe((lines.at(-1) ?? '').replace(/^[ \t\r\v\f]+|[ \t\r\v\f]+$/g, ''));
      }),
      { numRuns: 2000 },
    );
  });

  it('the window never changes the answer, whatever it is', () => {
    fc.assert(
      fc.property(text, fc.integer({ min: 1, max: 9000 }), fc.integer({ min: 1, max: 9000 }), (t, w1, w2) => {
        const data = Buffer.from(`${t}${'\n'.repeat(w1 % 97)}`);
        const a = findLastLine(bufferReader(data), data.length, w1);
        const b = findLastLine(bufferReader(data), data.length, w2);
        expect(a).toEqual(b);
      }),
      { numRuns: 1000 },
    );
  });

  it('real files, small and past the first read, with random windows', () => {
    const root = tempDir();
    const p = join(root, 'f.md');
    fc.assert(
      fc.property(text, fc.boolean(), fc.integer({ min: 0, max: 20_000 }), fc.integer({ min: 1, max: 4096 }), (t, big, blanks, window) => {
        const s = `${big ? `${'数'.repeat(FIRST_READ / 3 + 1)}\n` : ''}${t}${'\r\n'.repeat(blanks)}`;
        writeFileSync(p, s);
        expect(readFileFacts(p, 'f.md', M, { window }).marker).toBe(oracle(s));
      }),
      { numRuns: 120 },
    );
  });
});
