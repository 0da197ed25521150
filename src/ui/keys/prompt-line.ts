import type { Prompt } from '../store/types.js';
import { commandCandidates } from './command-line.js';

// The `:` line's own moves, pure: Tab completes and cycles the candidates, ↑/↓ walk the lines
// submitted before (docs/keys.md, The command line).

/** How many submitted lines ↑ reaches back. */
export const HISTORY_KEPT = 100;

/** Tab (or shift-tab, back): the next candidate for what was typed before the first tab; null when none fits. */
export function completeLine(p: Prompt, back = false): Prompt | null {
  const stem = p.tab?.stem ?? p.text;
  const cands = commandCandidates(stem);
  if (cands.length === 0) return null;
  const n = cands.length;
  const at = p.tab ? (back ? (p.tab.next - 2 + 2 * n) % n : p.tab.next % n) : back ? n - 1 : 0;
  return { kind: p.kind, text: cands[at], tab: { stem, next: at + 1 } };
}

/** ↑ (older) or ↓ (newer) through `history` (oldest first); ↓ past the newest gives an empty line. */
export function recallLine(p: Prompt, history: readonly string[], older: boolean): Prompt | null {
  const now = p.recall ?? -1;
  const at = older ? Math.min(now + 1, history.length - 1) : now - 1;
  if (older && at < 0) return null;
  if (at < 0) return now < 0 ? null : { kind: p.kind, text: '' };
  return { kind: p.kind, text: history[history.length - 1 - at], recall: at };
}

/** `history` with `line` as its newest entry (a repeat of the newest is kept once). */
export const remember = (history: readonly string[], line: string): readonly string[] => {
  const t = line.trim();
  if (t === '' || history[history.length - 1] === t) return history;
  return [...history, t].slice(-HISTORY_KEPT);
};
