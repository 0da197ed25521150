import { describe, expect, it } from 'vitest';
import { escapeOutput, textOut } from '../../../src/cli/text-out.js';
import { makePaint } from '../../../src/text/paint.js';
import { sanitizeLine } from '../../../src/text/sanitize.js';
import { HOSTILE, RAW_ANY } from '../../torture/evil-workspace.js';

// Issue 16 item 2: one escaping writer per stream. Whatever a call site forgot to escape, the
// writer does; with colour on, only paint's own SGR codes pass.

describe('the text writer (src/cli/text-out.ts)', () => {
  it('escapes what a call site left raw, keeps newlines, and is the identity on escaped text', () => {
    const line = `Phase 3 ${HOSTILE}\nnext`;
    const shown = escapeOutput(line, false);
    expect(RAW_ANY.exec(shown)).toBeNull();
    expect(shown).toBe(`Phase 3 ${sanitizeLine(HOSTILE)}\nnext`);
    expect(escapeOutput(shown, false)).toBe(shown);
    expect(escapeOutput('plain 日本 👩 text\n', false)).toBe('plain 日本 👩 text\n');
  });

  it("with colour on, paint's codes pass and every other sequence is escaped, inside painted text too", () => {
    const paint = makePaint(true);
    const text = `${paint('title', `checkroom · ${HOSTILE}`)} ${paint('danger', 'x')} \u001b[2J \u001b[31;2m`;
    const shown = escapeOutput(text, true);
    const codes = shown.match(/\u001b\[[\d;]*m/g);
    expect(codes).toEqual(['\u001b[1m', '\u001b[22m', '\u001b[31;1m', '\u001b[39;22m']);
    expect(RAW_ANY.exec(shown.replace(/\u001b\[(1|22|31;1|39;22)m/g, ''))).toBeNull();
    expect(shown).toContain('\\e[2J \\e[31;2m');
    // Colour off: not even paint's codes.
    expect(escapeOutput(text, false)).not.toContain('\u001b');
  });

  it('writes through to its stream, escaped', () => {
    const got: string[] = [];
    const out = textOut({ write: (s: string) => got.push(s) } as unknown as NodeJS.WritableStream, false);
    out.write(`a\u001b]52;c;x\u0007b\n`);
    expect(got).toEqual(['a\\e]52;c;x\\ab\n']);
  });
});
