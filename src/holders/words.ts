import type { LiveFile, WriterHolder } from './liveness.js';

// How a live file reads: who writes it, since when, and whether checkroom
// launched it, first, because the message line is cut at the terminal's width. Raw text:
// the command name comes from the process, so callers sanitize where they draw.

const pad2 = (n: number): string => String(n).padStart(2, '0');
const hhmm = (ms: number): string => {
  const d = new Date(ms);
  return `${pad2(d.getHours())}:${pad2(d.getMinutes())}`;
};

const holderText = (h: WriterHolder): string => `pid ${h.pid} (${h.command})${h.startMs !== null ? ` since ${hhmm(h.startMs)}` : ''}`;
const originText = (h: WriterHolder): string => `(${h.ours ? 'launched by checkroom' : 'not launched by checkroom'})`;

const seconds = (ms: number): string => `${Math.round(ms / 100) / 10} s`;

/** The two halves of the sentence, so a narrow view can put them on two rows: who writes, then whose it is. */
export function liveParts(l: LiveFile): { who: string; origin: string } {
  if (l.kind === 'recent') return { who: `changed ${seconds(l.agoMs)} ago, within the quiet window (${seconds(l.quietMs)})`, origin: '(a writer may be pausing, here or on another host)' };
  const [first, ...more] = l.holders;
  const others = more.length ? `, ${more.map(holderText).join(', ')}` : '';
  return { who: `being written by ${holderText(first)}${others}`, origin: originText(first) };
}

/** "drafts/ch05-draft.md is being written by pid 4242 (node) since 21:04 (not launched by checkroom)". */
export function liveWhy(l: LiveFile): string {
  const { who, origin } = liveParts(l);
  return `${l.path} ${l.kind === 'held' ? 'is ' : ''}${who} ${origin}`;
}

/** The short form for a list row. */
export const liveWord = (l: LiveFile): string => (l.kind === 'held' ? `written by pid ${l.holders[0].pid}` : 'changed just now');

/** What a refusal adds: nothing destructive is offered while it lasts. */
export const HANDS_OFF = 'no back-up, keep or redo until it stops';

/** "could not check 3 processes of other users", or '' when every process was checked. */
export const uncheckedNote = (n: number): string => (n > 0 ? `could not check ${n} process${n === 1 ? '' : 'es'} of other users (not root)` : '');
