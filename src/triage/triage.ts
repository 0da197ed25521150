import type { FileFacts, StepDef, Triage } from '../types.js';
import { sanitizeLine } from '../sanitize.js';

// DOMAIN.md section 4, the decision tree for a file without its marker:
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
export function truncationSign(tail: string, fenceOpen: boolean): string | null {
  if (fenceOpen) return 'a code fence is opened and never closed';
  const lines = lastLines(tail);
  const last = lines.at(-1)?.trim() ?? '';
  if (last === '') return null;
  if (HEADING.test(last)) return `ends on a heading with nothing under it ("${quote(last)}")`;
  if (EMPTY_ITEM.test(last)) return `ends on an empty list item ("${quote(last)}")`;
  if (/^<!--/.test(last) && !/-->$/.test(last)) return `ends inside an HTML comment ("${quote(last)}")`;
  if (RULE.test(last)) return null;
  if (DANGLING_WORD.test(last)) return `ends mid-sentence on a dangling word ("${quote(last)}")`;
  if (CONNECTOR.test(last)) return `ends mid-sentence on "${quote(last.slice(-1))}" ("${quote(last)}")`;
  if (LIST_ITEM.test(last) || last.startsWith('|') || /^<\/?[a-z]/i.test(last) || /-->$/.test(last)) return null;
  if (!TERMINAL.test(last)) return `ends mid-sentence, without closing punctuation ("${quote(last)}")`;
  return null;
}

export function triageUnmarked(facts: FileFacts): Triage {
  if (facts.error) return { verdict: 'almost_certainly_partial', reason: `${facts.error}; back up and redo` };
  if (facts.chars < PARTIAL_CHARS)
    return {
      verdict: 'almost_certainly_partial',
      reason: `only ${facts.chars} characters (under ${PARTIAL_CHARS}) and no marker: cut off early; back up and redo`,
    };
  const sign = truncationSign(facts.tail, facts.fenceOpen);
  if (sign) return { verdict: 'truncated', reason: `${facts.chars} characters, no marker, and the end is cut: ${sign}; back up and redo` };
  const last = lastLines(facts.tail).at(-1)?.trim() ?? '';
  return {
    verdict: 'maybe_complete',
    reason: `${facts.chars} characters, ends cleanly ("${quote(last)}"), only the marker is missing: keep (append the marker) or redo`,
  };
}

/** Cause 3: a marker on a body far too small to be real work. Null when the body is plausible. */
export function triageMarked(facts: FileFacts, step: StepDef): Triage | null {
  if (step.minChars <= 0 || !step.marker) return null;
  const body = Math.max(0, facts.chars - `<!-- ${step.marker} -->`.length);
  if (body >= step.minChars) return null;
  return {
    verdict: 'suspicious',
    reason: `has its marker but the body is only ${body} characters (expected at least ${step.minChars}): the agent may have marked bad work; review or redo`,
  };
}
