import { cutSign } from '../triage/triage.js';
import type { Sign } from '../reasons/why.js';
import { saySign } from '../reasons/say.js';
import { sanitizeLine } from '../text/sanitize.js';

// Is a long-memory text cut off? truncationSign (triage.ts) reads prose endings; long-memory
// files are mostly lists (a glossary is one item per term), and triage accepts any list item
// as a clean end. Here a last list item is also judged by its own text, against the file's
// own habit: when most items end with closing punctuation and the last one does not, the
// writer stopped mid-item (the demo's glossary: "…按链表存放到", no newline after it).

const LIST_ITEM = /^\s*([-*+]|\d+[.)])\s+(.*)$/;
const TERMINAL = /[.!?。！？…)\]）」』"'”’*`>|~]$/;
const DANGLING = /(\b(the|a|an|and|or|of|to|in|on|for|with|because|that|which|is|are|was|be|by|as|at|from|but|if|when|than)|[的了和与在是把被对将而但从或到])$/i;
const CONNECTOR = /[,，、;；:：\-–—(（「『]$/;

const quote = (line: string): string => {
  const s = sanitizeLine(line);
  return s.length > 48 ? `…${s.slice(-47)}` : s;
};

/** Why the text looks cut off, or null when it looks whole. */
export function memoryCut(text: string): Sign | null {
  const lines = text.replace(/^\uFEFF/, '').split('\n').map((l) => l.replace(/\r$/, '').trimEnd());
  const nonBlank = lines.filter((l) => l.trim() !== '');
  const last = nonBlank.at(-1)?.trim() ?? '';
  if (last === '') return null;
  const fences = nonBlank.filter((l) => /^\s*(```|~~~)/.test(l)).length;
  const general = cutSign(nonBlank.slice(-40).join('\n'), fences % 2 === 1);
  if (general) return general;
  const item = LIST_ITEM.exec(last);
  if (!item) return null;
  const body = item[2].trim();
  const line = quote(last);
  if (DANGLING.test(body)) return { k: 'item_dangling', line };
  if (CONNECTOR.test(body)) return { k: 'item_connector', char: quote(body.slice(-1)), line };
  if (TERMINAL.test(body)) return null;
  const items = nonBlank.slice(0, -1).map((l) => LIST_ITEM.exec(l)?.[2]?.trim()).filter((b): b is string => !!b);
  const closed = items.filter((b) => TERMINAL.test(b)).length;
  if (items.length >= 2 && closed / items.length >= 0.75) return { k: 'item_unclosed', closed, of: items.length, noEol: !/\n\s*$/.test(text), line };
  return null;
}

/** memoryCut in English words. */
export function memoryCutSign(text: string): string | null {
  const sign = memoryCut(text);
  return sign ? saySign(sign) : null;
}
