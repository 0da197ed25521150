import type { CellStatus, Claim } from '../types.js';

// One glyph per cell state. The emoji set uses only East-Asian-Wide code points so every
// glyph is exactly two columns in tmux, SSH clients and Ink's layout alike (⚠️ is not:
// U+26A0 is narrow and VS16 widths differ between terminals, so the matrix shows ✋ for
// needs-human while checkpoint.md keeps the document's ⚠️). The ASCII set is for
// `--ascii`, TERM=linux and non-UTF-8 locales.

/** `blocked`: a cell not started that waits on a failed or escalated one (its `blockedBy`),
 *  drawn apart from not-started work (text/cell-look.ts decides which). */
export type GlyphSet = Record<CellStatus | 'blocked', string>;

export const EMOJI: GlyphSet = { done: '✅', partial: '🚧', failed: '❌', needs_human: '✋', running: '⏳', blocked: '🔒', not_started: '--' };
export const ASCII: GlyphSet = { done: '+ ', partial: '~ ', failed: 'X ', needs_human: '! ', running: '> ', blocked: '# ', not_started: '. ' };

/** What checkpoint.md claims, in words a person reads in a sentence ("checkpoint says needs a
 *  human"). Sentences built below the UI carry no glyph: the domain does not know whether the
 *  terminal can draw one (`--ascii`); a view that wants the glyph adds it itself. */
export const CLAIM_WORD: Record<Claim, string> = { done: 'done', in_progress: 'in progress', failed: 'failed', needs_human: 'needs a human', not_started: 'not started' };

export const STATUS_WORD: Record<CellStatus, string> = {
  done: 'done',
  partial: 'partial',
  failed: 'failed',
  needs_human: 'needs human',
  running: 'running',
  not_started: 'not started',
};

/** A glyph's word in a legend. */
export const GLYPH_WORD: Record<keyof GlyphSet, string> = { ...STATUS_WORD, blocked: 'blocked' };

export const glyphsFor = (ascii: boolean): GlyphSet => (ascii ? ASCII : EMOJI);
