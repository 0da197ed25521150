import type { Token } from './theme.js';

// The headless CLI paints with the control room's semantic tokens (src/text/theme.ts: one
// Token type), as SGR codes instead of Ink styles. NO_COLOR (any non-empty
// value, https://no-color.org) and non-TTY output give plain text.

const CODES: Record<Token, [string, string]> = {
  ok: ['32', '39'],
  warn: ['33', '39'],
  fail: ['31', '39'],
  muted: ['90', '39'],
  accent: ['36', '39'],
  title: ['1', '22'],
  selected: ['7', '27'],
  danger: ['31;1', '39;22'],
};

export type Paint = (token: Token, text: string) => string;

export function colorEnabled(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): boolean {
  if (env.NO_COLOR) return false;
  if (env.FORCE_COLOR && env.FORCE_COLOR !== '0') return true;
  return !!stream.isTTY && env.TERM !== 'dumb';
}

/**
 * Exactly the SGR sequences makePaint writes, as a splitting pattern: the text writer
 * (src/cli/text-out.ts) lets these through and escapes every other control.
 */
export const PAINT_SGR = new RegExp(`(\u001b\\[(?:${[...new Set(Object.values(CODES).flat())].join('|')})m)`);

export const makePaint = (enabled: boolean): Paint =>
  enabled ? (t, s) => `\u001b[${CODES[t][0]}m${s}\u001b[${CODES[t][1]}m` : (_t, s) => s;

/**
 * Columns for text output: the terminal's own width (60 to 160); when piped (cron, a file,
 * `| cat`, `| grep`), COLUMNS if set — so `COLUMNS=100 checkroom plan > log` fits a page —
 * else no limit: a pipe has no width, and a cut line loses what a grep looks for
 * (docs/commands.md, Piped output).
 */
export function outputWidth(stream: { isTTY?: boolean; columns?: number }, env: NodeJS.ProcessEnv): number {
  if (stream.isTTY && stream.columns) return Math.max(60, Math.min(stream.columns, 160));
  const cols = Number(env.COLUMNS);
  return Number.isInteger(cols) && cols > 0 ? Math.max(60, Math.min(cols, 1000)) : Infinity;
}
