import type { TerminalAlarms } from './types.js';

// The terminal's own alarms as bytes (docs/notify.md, Terminal alarms): the bell, a desktop
// notification (OSC 9: iTerm2, Windows Terminal, Ghostty; OSC 777: urxvt, foot, WezTerm;
// OSC 99: kitty) and the tab title. Pure: what to write, never where. Inside tmux a desktop
// notification only reaches the outer terminal wrapped for passthrough (DCS tmux; every ESC
// doubled), and only when tmux's allow-passthrough is on; the bell and the title tmux
// handles itself. No text from the workspace reaches them with a control character in it.

const ESC = '\x1b';
const BEL = '\x07';
const ST = `${ESC}\\`;

/** Text safe inside an OSC: no C0/C1 control, DEL, line or format character; `;` separates OSC 777's fields. */
export const oscText = (s: string, max = 120): string => {
  // eslint-disable-next-line no-control-regex -- control characters are what it removes
  const flat = s.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\p{Cf}]/gu, ' ').replace(/;/g, ',').replace(/ {2,}/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 3)}...` : flat;
};

/** Wrapped for tmux's passthrough: DCS tmux; …ESC doubled… ST. */
export const tmuxWrap = (seq: string): string => `${ESC}Ptmux;${seq.replaceAll(ESC, ESC + ESC)}${ST}`;

export function notificationOf(osc: 9 | 99 | 777, title: string, body: string): string {
  const t = oscText(title, 60);
  const b = oscText(body);
  if (osc === 9) return `${ESC}]9;${t}: ${b}${BEL}`;
  if (osc === 777) return `${ESC}]777;notify;${t};${b}${BEL}`;
  return `${ESC}]99;i=checkroom:d=0;${t}${ST}${ESC}]99;i=checkroom:d=1:p=body;${b}${ST}`;
}

export const titleOf = (text: string): string => `${ESC}]2;${oscText(text, 80)}${BEL}`;

export interface TerminalPlace {
  /** $TMUX is set. */
  tmux: boolean;
  /** tmux's allow-passthrough is on (or all). */
  passthrough: boolean;
}

/**
 * The bytes for a change of the needs-you count: bell and notification only when it grew (a
 * new escalation), the title whenever it changed. `title`: what the tab says ("2 need you ·
 * checkroom book"); `news`: the notification's body.
 */
export function alarmBytes(cfg: TerminalAlarms, change: { before: number; after: number; title: string; heading: string; news: string }, where: TerminalPlace): string {
  let out = '';
  if (cfg.title && change.after !== change.before) out += titleOf(change.title);
  if (change.after <= change.before) return out;
  if (cfg.bell) out += BEL;
  if (cfg.osc !== null && (!where.tmux || where.passthrough)) {
    const seq = notificationOf(cfg.osc, change.heading, change.news);
    out += where.tmux ? tmuxWrap(seq) : seq;
  }
  return out;
}
