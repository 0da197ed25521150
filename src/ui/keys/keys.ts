// Ink hands `useInput` one string per read: tmux and SSH deliver `jjj` (or `jj` + Enter)
// as a single input, while escape sequences arrive parsed as named keys. A KeyToken is
// one keypress; toTokens splits a burst so every key in it is handled, in order.

export type KeyName = 'up' | 'down' | 'left' | 'right' | 'return' | 'escape' | 'tab' | 'backspace' | 'delete' | 'pageUp' | 'pageDown' | 'home' | 'end';

export interface KeyToken {
  /** The printable character, or '' for a named key. */
  ch: string;
  name: KeyName | null;
  ctrl: boolean;
  shift: boolean;
}

/** The subset of Ink's `Key` we read (structural, so src/ does not import Ink). */
export interface InkKeyLike {
  upArrow: boolean;
  downArrow: boolean;
  leftArrow: boolean;
  rightArrow: boolean;
  pageUp: boolean;
  pageDown: boolean;
  return: boolean;
  escape: boolean;
  tab: boolean;
  backspace: boolean;
  delete: boolean;
  ctrl: boolean;
  shift: boolean;
  home?: boolean;
  end?: boolean;
  /** Ink's "meta": a key that came right after an Esc (Alt sends the same bytes). */
  meta?: boolean;
}

const NAMED: [keyof InkKeyLike, KeyName][] = [
  ['upArrow', 'up'],
  ['downArrow', 'down'],
  ['leftArrow', 'left'],
  ['rightArrow', 'right'],
  ['pageUp', 'pageUp'],
  ['pageDown', 'pageDown'],
  ['home', 'home'],
  ['end', 'end'],
  ['return', 'return'],
  ['escape', 'escape'],
  ['tab', 'tab'],
  ['backspace', 'backspace'],
  ['delete', 'delete'],
];

const CONTROL_CHAR: Record<string, KeyName> = { '\r': 'return', '\n': 'return', '\t': 'tab', '\u007f': 'backspace', '\b': 'backspace' };

const charToken = (ch: string): KeyToken => {
  const name = CONTROL_CHAR[ch] ?? null;
  return { ch: name ? '' : ch, name, ctrl: false, shift: name === null && ch !== ch.toLowerCase() };
};

const ESCAPE: KeyToken = { ch: '', name: 'escape', ctrl: false, shift: false };

export function toTokens(input: string, key: InkKeyLike): KeyToken[] {
  // Esc then a key at once (in one read, or the key within Ink's Esc delay) reaches us as that
  // key with "meta": no command is bound to Alt, so it is both keys, the Esc first — else the
  // Esc that closed a prompt was lost and the key acted on it (docs/keys.md, Prompts).
  if (key.meta && !key.escape) return [ESCAPE, ...toTokens(input, { ...key, meta: false })];
  for (const [flag, name] of NAMED) {
    if (key[flag]) return [{ ch: '', name, ctrl: key.ctrl, shift: key.shift }];
  }
  if (key.ctrl) return [{ ch: input.toLowerCase(), name: null, ctrl: true, shift: false }];
  // A multi-character input is a burst of plain keys (escape sequences never get here:
  // Ink parses them into named keys first). Iterate by code point, not UTF-16 unit.
  return [...input].map(charToken);
}
