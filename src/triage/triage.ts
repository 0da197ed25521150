import type { FileFacts, StepDef, Triage } from '../types.js';
import type { Cut } from './cut-evidence.js';
import { sanitizeLine } from '../text/sanitize.js';
import type { Sign, Why } from '../reasons/why.js';
import { say, saySign } from '../reasons/say.js';

// docs/domain.md, Half-products, the decision tree for a file without its marker:
//   < 100 characters → almost certainly a half-product (back up and redo);
//   visibly cut off → truncated (redo), and we say which sign we saw;
//   otherwise → maybe complete, only the marker is missing (a human decides).
// And cause 3: a marker on a body far too small to be real work → suspicious.

export const PARTIAL_CHARS = 100;

const TERMINAL = /[.!?。！？…)\]）」』"'”’*`>|~]$/;
const CONNECTOR = /[,，、;；:：\-–—(（「『]$/;
const HEADING = /^#{1,6}\s+\S/;
const EMPTY_ITEM = /^([-*+]|\d+[.)])\s*$/;
const LIST_ITEM = /^([-*+]|\d+[.)])\s+/;
// A line that stops on a function word was cut mid-sentence, list item or not. Lower case
// only: "see Appendix A" ends on a name, not an article; 了 ends sentences.
const DANGLING_WORD = /(\b(the|a|an|and|or|of|to|in|on|for|with|because|that|which|is|are|was|be|by|as|at|from|but|if|when|than)|[的和与在是把被对将而但从或])$/;
const RULE = /^([-*_])(\s*\1){2,}$/;

const quote = (line: string): string => {
  const s = sanitizeLine(line);
  return s.length > 48 ? `…${s.slice(-47)}` : s;
};

const lastLines = (tail: string): string[] =>
  tail
    .replace(/^\uFEFF/, '')
    .split('\n')
    .map((l) => l.replace(/\r$/, '').trimEnd())
    .filter((l) => l.trim() !== '');

/** Why the end of the text looks cut off, or null when it looks whole. */
export function cutSign(tail: string, fenceOpen: boolean): Sign | null {
  if (fenceOpen) return { k: 'fence' };
  const lines = lastLines(tail);
  const last = lines.at(-1)?.trim() ?? '';
  if (last === '') return null;
  const line = quote(last);
  if (HEADING.test(last)) return { k: 'heading', line };
  if (EMPTY_ITEM.test(last)) return { k: 'empty_item', line };
  if (/^<!--/.test(last) && !/-->$/.test(last)) return { k: 'comment', line };
  if (RULE.test(last)) return null;
  if (DANGLING_WORD.test(last)) return { k: 'dangling', line };
  if (CONNECTOR.test(last)) return { k: 'connector', char: quote(last.slice(-1)), line };
  if (LIST_ITEM.test(last) || last.startsWith('|') || /^<\/?[a-z]/i.test(last) || /-->$/.test(last)) return null;
  if (!TERMINAL.test(last)) return { k: 'no_punct', line };
  return null;
}

/** cutSign in English words. */
export function truncationSign(tail: string, fenceOpen: boolean): string | null {
  const sign = cutSign(tail, fenceOpen);
  return sign ? saySign(sign) : null;
}

/** The local wall-clock time of an event, HH:MM (the operator's clock, as the journal viewer shows it). */
const clockOf = (at: number): string => {
  const d = new Date(at);
  return `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
};

const triaged = (verdict: Triage['verdict'], why: Why): Triage => ({ verdict, reason: say(why), why });

/**
 * Whether `cut` speaks for the file as it is: the same output, unchanged since its writer's end
 * — the size and mtime the exit recorded, the file system's own, never
 * compared with the process clock; a journal written before those were recorded has only the
 * exit's time.
 */
export const cutApplies = (facts: FileFacts, cut: Cut | undefined): cut is Cut => {
  if (!cut || !facts.exists || (cut.path !== null && cut.path !== facts.path)) return false;
  if (cut.file === undefined) return facts.mtimeMs <= cut.at;
  return cut.file !== null && cut.file.bytes === facts.bytes && cut.file.mtimeMs === facts.mtimeMs;
};

/**
 * `cut`: how the file's last writer ended, from the journal (cut-evidence.ts). The journal is
 * evidence: a file its writer was cut off in, unchanged since, is cut
 * however its text ends; a file changed after that end (finished by hand) is judged by its
 * content.
 */
export function triageUnmarked(facts: FileFacts, cut?: Cut): Triage {
  if (facts.error) return triaged('almost_certainly_partial', { k: 'unreadable', error: facts.error });
  if (cutApplies(facts, cut)) {
    const atLeast = facts.charsAtLeast ? ({ atLeast: true } as const) : {};
    return triaged('truncated', { k: 'writer_cut', event: cut.event, at: cut.at, time: clockOf(cut.at), attempt: cut.attempt, chars: facts.chars, ...atLeast });
  }
  if (facts.chars < PARTIAL_CHARS) return triaged('almost_certainly_partial', { k: 'short', chars: facts.chars, limit: PARTIAL_CHARS });
  const atLeast = facts.charsAtLeast ? ({ atLeast: true } as const) : {};
  const last = lastLines(facts.tail).at(-1)?.trim() ?? '';
  // A marker-shaped last line is neither "cut" nor "only the marker is missing": a human must see that the marker there is the wrong one before keeping it.
  const m = facts.markerShape;
  if (m) return triaged('maybe_complete', { k: 'marker_shaped', shape: m.shape, chars: facts.chars, line: quote(last), expected: m.expected, ...atLeast });
  const sign = cutSign(facts.tail, facts.fenceOpen);
  if (sign) return triaged('truncated', { k: 'cut', chars: facts.chars, sign, ...atLeast });
  return triaged('maybe_complete', { k: 'clean', chars: facts.chars, line: quote(last), ...atLeast });
}

/** Cause 3: a marker on a body far too small to be real work. Null when the body is plausible. */
export function triageMarked(facts: FileFacts, step: StepDef): Triage | null {
  if (step.minChars <= 0 || !step.marker) return null;
  const body = Math.max(0, facts.chars - `<!-- ${step.marker} -->`.length);
  if (body >= step.minChars) return null;
  return triaged('suspicious', { k: 'suspicious', body, min: step.minChars });
}
