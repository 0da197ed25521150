import type { Claim, PhaseStatus } from '../types.js';
import { LANGS, VOCAB, norm } from './i18n.js';

// Cell glyphs of checkpoint.md (docs/domain.md, Three sources of progress): ✅ done · ⏳ in progress · ❌ failed ·
// ⚠️ needs a human · — not started. We also read a few unambiguous fallbacks people type
// by hand; anything else is reported and left out rather than guessed.

export const CLAIM_GLYPH: Record<Claim, string> = {
  done: '✅',
  in_progress: '⏳',
  failed: '❌',
  needs_human: '⚠️',
  not_started: '—',
};

/** Written for a cell whose claim is unknown, so that "unknown" survives a rewrite
 *  instead of turning into an empty cell (which reads as not started). */
export const UNKNOWN_GLYPH = '?';

const GLYPHS: Record<string, Claim> = {};
const add = (claim: Claim, ...keys: string[]): void => {
  for (const k of keys) GLYPHS[norm(k)] = claim;
};
add('done', '✅', '✔', '✓', '☑', '[x]', 'OK');
add('in_progress', '⏳', '⌛', '🔄');
add('failed', '❌', '✗', '✘', '✖');
add('needs_human', '⚠️', '⚠', 'NEEDS_HUMAN_REVIEW', 'NEEDS_HUMAN');
add('not_started', '—', '–', '-', '―', '', '[ ]');

const WORDS: Record<string, Claim> = {};
for (const lang of LANGS) {
  const v = VOCAB[lang];
  for (const [status, word] of Object.entries(v.status)) WORDS[norm(word)] = status as Claim;
  WORDS[norm(v.needsHuman)] = 'needs_human';
}
// Words the legends use that differ from the status words.
WORDS[norm('未開始')] = 'not_started';
WORDS[norm('needs human')] = 'needs_human';

const SYMBOLS = Object.keys(GLYPHS)
  .filter((k) => k !== '')
  .sort((a, b) => b.length - a.length);

/**
 * Read one cell or status suffix: a glyph, a status word, or a glyph followed by a word
 * (`✅ 完成`). The glyph wins when both are present. Returns '?' for the explicit unknown
 * marker and undefined for text we do not recognise.
 */
export function readClaim(raw: string): Claim | '?' | undefined {
  // A checkpoint repeats a handful of cell texts thousands of times; NFKC is the slow part.
  if (CACHE.has(raw)) return CACHE.get(raw);
  const claim = readClaimUncached(raw);
  if (CACHE.size < 1000) CACHE.set(raw, claim);
  return claim;
}

const CACHE = new Map<string, Claim | '?' | undefined>();

function readClaimUncached(raw: string): Claim | '?' | undefined {
  const n = norm(raw);
  if (n === UNKNOWN_GLYPH) return '?';
  const exact = GLYPHS[n] ?? WORDS[n];
  if (exact) return exact;
  for (const sym of SYMBOLS) {
    if (!n.startsWith(sym)) continue;
    const rest = n.slice(sym.length);
    if (rest === '' || WORDS[rest] !== undefined) return GLYPHS[sym];
  }
  return undefined;
}

/** A phase or batch heading status. needs_human has no phase equivalent, so it reads as unknown. */
export function readPhaseStatus(raw: string): PhaseStatus | '?' | undefined {
  const c = readClaim(raw);
  if (c === 'needs_human') return undefined;
  return c;
}

/** `✅ 完成` for done, just the word for not started (as the source document writes it). */
export function statusText(status: PhaseStatus, word: string): string {
  return status === 'not_started' ? word : `${CLAIM_GLYPH[status]} ${word}`;
}
