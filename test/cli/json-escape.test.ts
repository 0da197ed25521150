import { describe, expect, it } from 'vitest';
import { BMP_FORMAT, escapeJsonText } from '../../src/text/json-escape.js';
import { writeJson } from '../../src/cli/json-stream.js';
import { toJson } from '../../src/cli/json.js';
import { jsonLine } from '../../src/socket/wire.js';

// Issue 16 item 2: JSON keeps valid Unicode but writes controls, U+2028/2029, format
// characters and lone surrogates as \uXXXX, and parses back to the same string.

const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\p{Cf}\p{Cs}]/u;
const HOSTILE = 'a\u007f\u0085\u009b\u00ad\u200b\u200d\u2028\u2029\u202e\u2066\ufeff\u{e0001}\u{e0041}\u{e007f}\u{1d173}\ud800\udfffz 日本 👩‍💻 é';

const compact = (v: unknown): string => {
  const parts: string[] = [];
  writeJson(v, { write: (s) => parts.push(s) });
  return parts.join('');
};

describe('escapeJsonText (issue 16 item 2)', () => {
  it('the pre-check list is every BMP format character of this Unicode', () => {
    const listed = new RegExp(`[${BMP_FORMAT}]`);
    const wrong: string[] = [];
    for (let c = 0; c < 0x10000; c++) {
      if (c >= 0xd800 && c <= 0xdfff) continue;
      const ch = String.fromCharCode(c);
      if (/\p{Cf}/u.test(ch) !== listed.test(ch)) wrong.push(c.toString(16));
    }
    expect(wrong).toEqual([]);
  });

  it('every unsafe code point, BMP and astral, is escaped and parses back to itself', () => {
    const missed: string[] = [];
    for (let c = 0; c <= 0x10ffff; c++) {
      const ch = String.fromCodePoint(c);
      if (!UNSAFE.test(ch)) continue;
      const text = escapeJsonText(JSON.stringify(`x${ch}`));
      if (UNSAFE.test(text) || JSON.parse(text) !== `x${ch}`) missed.push(c.toString(16));
    }
    expect(missed).toEqual([]);
  });

  it('compact, indented and NDJSON output: nothing raw, the same strings back, valid text kept', () => {
    const value = { [HOSTILE]: [HOSTILE, { name: HOSTILE }], plain: 'ch01 日本 👩‍💻' };
    for (const text of [compact(value), toJson(value), jsonLine(value)]) {
      expect(UNSAFE.exec(text.replace(/\n/g, ''))).toBeNull();
      expect(JSON.parse(text)).toEqual(value);
      expect(text).toContain('日本 👩\\u200d💻 é');
    }
    // The streamed writer's text is the whole document's, escaped (the socket compares them byte for byte).
    expect(compact(value)).toBe(`${escapeJsonText(JSON.stringify(value))}\n`);
  });

  it('text without anything to escape is returned as it is', () => {
    const s = JSON.stringify({ a: 'ch01 日本 👩💻', b: [1, 2] });
    expect(escapeJsonText(s)).toBe(s);
  });
});
