import type { CellStatus } from '../types.js';

// Semantic colour tokens (STYLE.md idiom 6). Components ask for `ok`, `warn`, `fail`…,
// never for a colour. NO_COLOR (https://no-color.org) selects the theme whose tokens are
// empty: no colour, no bold, no inverse — the state still reads from glyphs and words.

export type Token = 'ok' | 'warn' | 'fail' | 'muted' | 'accent' | 'title' | 'selected' | 'danger';

export interface TokenStyle {
  color?: string;
  bold?: boolean;
  inverse?: boolean;
  dimColor?: boolean;
}

export type Theme = Record<Token, TokenStyle>;

export const COLOR_THEME: Theme = {
  ok: { color: 'green' },
  warn: { color: 'yellow' },
  fail: { color: 'red' },
  muted: { color: 'gray' },
  accent: { color: 'cyan' },
  title: { bold: true },
  selected: { inverse: true },
  danger: { color: 'red', bold: true },
};

export const NO_COLOR_THEME: Theme = { ok: {}, warn: {}, fail: {}, muted: {}, accent: {}, title: {}, selected: {}, danger: {} };

export const themeFor = (env: NodeJS.ProcessEnv): Theme => (env.NO_COLOR ? NO_COLOR_THEME : COLOR_THEME);

export const STATUS_TOKEN: Record<CellStatus, Token> = {
  done: 'ok',
  partial: 'warn',
  failed: 'fail',
  needs_human: 'fail',
  running: 'accent',
  not_started: 'muted',
};
