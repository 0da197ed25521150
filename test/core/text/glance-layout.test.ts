import { describe, expect, it } from 'vitest';
import stringWidth from 'string-width';
import { fitPath, fitWords, nextLine, stateFirstColumns } from '../../../src/text/layout.js';
import { wrapLine } from '../../../src/text/wrap.js';
import { makePaint } from '../../../src/text/paint.js';
import { ACTION_WORDS, actionWord } from '../../../src/plan/action-words.js';
import { lookOf } from '../../../src/text/cell-look.js';
import { ASCII, EMOJI, GLYPH_WORD } from '../../../src/text/glyphs.js';
import type { NextStep, PlanAction } from '../../../src/types.js';

// Issue 18 item 5, the pure layout: words and names are cut or wrapped whole, actions are
// said in the operator's words, a narrow Health row keeps its state column, and a blocked
// cell has a look of its own.

/** The words of `text`, for "every row is made of whole words of the text". */
const words = (text: string): Set<string> => new Set(text.split(/\s+/).filter(Boolean));

describe('fitWords: a reason is cut at a word, never inside one', () => {
  const reason = 'drafts/ch05-draft.md: 1880 characters, no marker, the writer was cancelled at 14:02 (attempt 2, journal)';
  for (const w of [12, 20, 33, 47, 60, 79]) {
    it(`at ${w} columns every word shown is whole, and "…" says the rest is below`, () => {
      const cut = fitWords(reason, w);
      expect(stringWidth(cut)).toBeLessThanOrEqual(w);
      expect(cut.endsWith('…')).toBe(true);
      const shown = cut.slice(0, -1).split(' ');
      const all = words(reason);
      // Trailing separators (the comma after "characters") may go; the word itself is whole,
      // or, for a path that alone is wider than the column, its directories up to a `/`.
      const whole = (s: string) => all.has(s) || all.has(`${s},`) || all.has(`${s}:`) || (s.endsWith('/') && [...all].some((x) => x.startsWith(s)));
      for (const s of shown) expect(whole(s), `${JSON.stringify(s)} in ${JSON.stringify(cut)}`).toBe(true);
    });
  }

  it('cuts CJK text between characters and keeps what fits', () => {
    const zh = '评审团认为本章在补充再平衡示意图后即可定稿，核心内容无需重写。';
    const cut = fitWords(zh, 21);
    expect(stringWidth(cut)).toBeLessThanOrEqual(21);
    expect(zh.startsWith(cut.slice(0, -1))).toBe(true);
    expect(stringWidth(cut)).toBeGreaterThanOrEqual(19);
  });

  it('leaves a text that fits as it is, and gives nothing to a column of 0', () => {
    expect(fitWords('ch01 research failed', 20)).toBe('ch01 research failed');
    expect(fitWords('ch01 research failed', 0)).toBe('');
  });
});

describe('wrapLine: names and paths wrap as a whole', () => {
  const line = '  reader-feedback/ch02-panel.md → reader-feedback/ch02-panel.md.bak.20261202-001800';
  for (const width of [60, 80, 120]) {
    it(`at ${width} columns (the backup dialog's line) no file name is split`, () => {
      const rows = wrapLine(line, width);
      for (const r of rows) expect(stringWidth(r)).toBeLessThanOrEqual(width);
      // Every path stays on one row, whole.
      const flat = rows.map((r) => r.trim());
      for (const p of ['reader-feedback/ch02-panel.md', 'reader-feedback/ch02-panel.md.bak.20261202-001800'])
        expect(
          flat.some((r) => r.split(' ').includes(p)),
          rows.join('\n'),
        ).toBe(true);
    });
  }

  it('a path wider than the row breaks after a "/", its names whole', () => {
    const path = 'a-rather-long-directory-name/another-directory-of-the-book/chapters/ch05-draft-with-a-long-name.md';
    const rows = wrapLine(`  ${path}`, 40).map((r) => r.trim());
    expect(rows.join('')).toBe(path);
    for (const r of rows.slice(0, -1)) expect(r.endsWith('/'), rows.join('\n')).toBe(true);
  });

  it('a word wider than the row, with no "/", is elided in its middle, its start and end kept', () => {
    const word = `chapter-${'x'.repeat(80)}-final.md`;
    const rows = wrapLine(`see ${word} now`, 40);
    const elided = rows.find((r) => r.includes('…'))!.trim();
    expect(elided.startsWith('chapter-')).toBe(true);
    expect(elided.endsWith('final.md')).toBe(true);
    expect(rows.join(' ')).toContain('now');
  });
});

describe('fitPath: a path gives way from its start', () => {
  it('drops leading directories first and keeps the file name whole', () => {
    expect(fitPath('reader-feedback/ch02-panel.md', 40)).toBe('reader-feedback/ch02-panel.md');
    expect(fitPath('book/reader-feedback/ch02-panel.md', 30)).toBe(
      '…/reader-feedback/ch02-panel.md'.length <= 30 ? '…/reader-feedback/ch02-panel.md' : '…/ch02-panel.md',
    );
    expect(fitPath('reader-feedback/ch02-panel.md', 20)).toBe('…/ch02-panel.md');
    const name = fitPath('x/ch02-panel-with-a-very-long-name.md', 16);
    expect(stringWidth(name)).toBeLessThanOrEqual(16);
    expect(name.startsWith('ch02')).toBe(true);
    expect(name.endsWith('.md')).toBe(true);
  });
});

describe('plan actions in operator words (the machine names stay in --json)', () => {
  const step = (action: PlanAction): NextStep => ({ priority: 1, unit: 'ch01', step: 'draft', action, reason: 'the reason', blocks: 0 });
  const o = { paint: makePaint(false), ascii: false, width: 80 };

  it('every action has words, and none of them is an identifier', () => {
    expect(actionWord('human_review')).toBe('needs you');
    expect(actionWord('backup_redo')).toBe('back up & redo');
    expect(actionWord('rebuild_memory')).toBe('rebuild memory');
    expect(actionWord('decide')).toBe('decide');
    for (const w of Object.values(ACTION_WORDS)) expect(w).not.toMatch(/_/);
  });

  it('the plan and status lines say the words, never the machine name', () => {
    for (const a of Object.keys(ACTION_WORDS) as PlanAction[]) {
      const l = nextLine(step(a), o, 78);
      expect(l).toContain(` ${actionWord(a)} `);
      if (a.includes('_')) expect(l).not.toContain(a);
    }
  });
});

describe('stateFirstColumns: the state column gives way last', () => {
  it('at 60 and 44 columns a 24-wide name gives way before a 14-wide countdown', () => {
    for (const width of [60, 44]) {
      const c = stateFirstColumns(width, 24, 14);
      expect(c.state).toBe(14);
      expect(2 + c.name + 1 + c.state + 1 + c.rest).toBeLessThanOrEqual(width);
      expect(c.name).toBeGreaterThanOrEqual(8);
    }
    expect(stateFirstColumns(120, 24, 14)).toEqual({ name: 24, state: 14, rest: 120 - 4 - 24 - 14 });
  });
});

describe('a blocked cell has a look of its own', () => {
  it('not started and blocked by a failure is "blocked", with a glyph in both sets', () => {
    expect(lookOf({ status: 'not_started', blockedBy: ['ch06/draft'] })).toBe('blocked');
    expect(lookOf({ status: 'not_started', blockedBy: [] })).toBe('not_started');
    expect(lookOf({ status: 'failed', blockedBy: ['ch06/draft'] })).toBe('failed');
    expect(EMOJI.blocked).not.toBe(EMOJI.not_started);
    expect(ASCII.blocked).not.toBe(ASCII.not_started);
    expect(stringWidth(EMOJI.blocked)).toBe(2);
    expect(ASCII.blocked).toMatch(/^[\x20-\x7e]{2}$/);
    expect(GLYPH_WORD.blocked).toBe('blocked');
  });
});

describe('wrapLine: an indented word wider than the row', () => {
  it('is elided once, not drawn as a lone "…" row', () => {
    const rows = wrapLine(`  ${'y'.repeat(100)} end`, 40);
    expect(rows[0].trim()).not.toBe('…');
    expect(rows[0]).toMatch(/^y+…y+$/);
    expect(rows.at(-1)!.trim()).toBe('end');
  });
});
