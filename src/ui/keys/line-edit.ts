import type { KeyToken } from './keys.js';

// One line editor for every text prompt (the `:` line, the `/` filter, the pager's search),
// with the keys a shell's readline taught the hand: backspace, Ctrl-U clears, Ctrl-W deletes
// the word before the cursor (docs/keys.md, Prompts).

/** The line after `t`, or null when `t` is not an editing key (the caller routes it on). */
export function editLine(text: string, t: KeyToken): string | null {
  if (t.name === 'backspace' || t.name === 'delete') return [...text].slice(0, -1).join('');
  if (t.ctrl && t.name === null) {
    if (t.ch === 'u') return '';
    // Trailing spaces go with the word, as in readline's unix-word-rubout.
    if (t.ch === 'w') return text.replace(/\S*\s*$/u, '');
    return null;
  }
  if (t.name === null && t.ch) return text + t.ch;
  return null;
}
