import type { KeyName, KeyToken } from './keys.js';
import { COMMAND_NAMES, commandLabel } from './command-line.js';
import { VIEWS, type ViewId } from '../views/views.js';

// The one key table (STYLE.md idiom 3): command → bindings → description → dangerous.
// The same rows dispatch keys (matchCommand), draw the footer (footerHints) and fill the
// `?` overlay (helpRows). `dangerous` marks every action that writes to the workspace:
// it always confirms first, and `--readonly` strips it (k9s' lesson).

// The command ids are the rows' ids (the union was a hand copy of them):
// a new row is a new CommandId, and a view's own command comes from the view registry
// (views.ts), so one row there adds both.
export type CommandId = (typeof ROWS)[number]['id'];

/** Where a command applies: the main views, or an open dialog / prompt line. */
export type Scope = 'main' | 'dialog' | 'prompt' | 'pager' | RecoveryScope;

/** The recovery overlays (recover report, backups panel, RESUME.md offer on quit) own the keys they bind. */
export type RecoveryScope = 'recover' | 'backups' | 'offer';

export interface Binding {
  ch?: string;
  name?: KeyName;
  ctrl?: boolean;
  shift?: boolean;
}

export interface KeyCommand<I extends string = CommandId> {
  id: I;
  keys: Binding[];
  /** How the keys read in the footer and overlay: the first binding unless a row says more; a key-less command's `:` name. */
  label: string;
  /** Short footer word. */
  hint: string;
  description: string;
  dangerous: boolean;
  scope: Scope;
  /** Views it applies to; 'all' for every view. */
  views: readonly ViewId[] | 'all';
  /** Shown in the footer (the overlay lists every command). */
  footer: boolean;
  /** Drives the agent supervisor (launch, autopilot): stripped in read-only mode too. */
  runs?: boolean;
}

const NAME_LABEL: Record<KeyName, string> = {
  up: '↑', down: '↓', left: '←', right: '→', return: 'enter', escape: 'esc', tab: 'tab',
  backspace: 'backspace', delete: 'delete', pageUp: 'PgUp', pageDown: 'PgDn', home: 'home', end: 'end',
};

/** How a binding reads: `q`, `ctrl-c`, `enter`, `shift-tab`. */
export const bindingLabel = (b: Binding): string =>
  `${b.ctrl ? 'ctrl-' : ''}${b.shift ? 'shift-' : ''}${b.name ? NAME_LABEL[b.name] : b.ch === ' ' ? 'space' : (b.ch ?? '')}`;

type Row<I extends string> = Omit<KeyCommand<I>, 'dangerous' | 'scope' | 'views' | 'footer' | 'label'> & Partial<KeyCommand<I>>;

const cmd = <I extends string>(c: Row<I>): KeyCommand<I> => ({
  dangerous: false,
  scope: 'main',
  views: 'all',
  footer: false,
  label: c.keys[0] ? bindingLabel(c.keys[0]) : commandLabel(c.id),
  ...c,
});

const viewCommands = VIEWS.map((v) =>
  cmd({ id: `view.${v.id}` as `view.${ViewId}`, keys: [{ ch: v.key }], hint: v.title.toLowerCase(), description: `show the ${v.title} view` }),
);

const ROWS = [
  ...viewCommands,
  cmd({ id: 'view.next', keys: [{ name: 'tab', shift: false }], hint: 'next view', description: 'next view', footer: true }),
  cmd({ id: 'view.prev', keys: [{ name: 'tab', shift: true }], hint: 'prev view', description: 'previous view' }),
  cmd({ id: 'move.up', keys: [{ ch: 'k' }, { name: 'up' }], label: 'k/↑', hint: 'up', description: 'move up' }),
  cmd({ id: 'move.down', keys: [{ ch: 'j' }, { name: 'down' }], label: 'j/↓', hint: 'down', description: 'move down' }),
  cmd({ id: 'move.left', keys: [{ ch: 'h' }, { name: 'left' }], label: 'h/←', hint: 'left', description: 'move left (matrix)', views: ['progress'] }),
  cmd({ id: 'move.right', keys: [{ ch: 'l' }, { name: 'right' }], label: 'l/→', hint: 'right', description: 'move right (matrix)', views: ['progress'] }),
  cmd({ id: 'move.top', keys: [{ ch: 'g' }, { name: 'home' }], hint: 'top', description: 'go to the top' }),
  cmd({ id: 'move.bottom', keys: [{ ch: 'G' }, { name: 'end' }], hint: 'bottom', description: 'go to the bottom' }),
  cmd({ id: 'page.up', keys: [{ name: 'pageUp' }], hint: 'page up', description: 'one page up' }),
  cmd({ id: 'page.down', keys: [{ name: 'pageDown' }], hint: 'page down', description: 'one page down' }),
  cmd({ id: 'open', keys: [{ name: 'return' }], hint: 'detail', description: "open the cell's detail", views: ['progress'], footer: true }),
  cmd({ id: 'history.travel', keys: [{ name: 'return' }], hint: 'go to then', description: 'History: show every view as the pipeline was at this row (or :at 14:05); esc returns to now', views: ['history'], footer: true }),
  cmd({ id: 'history.postmortem', keys: [{ ch: 'P' }], hint: 'post-mortem', description: "the cell's post-mortem: every attempt with class, duration, cost, log, and what the operator did", views: ['progress', 'history'], footer: true }),
  cmd({ id: 'back', keys: [{ name: 'escape' }], hint: 'back', description: 'back: close detail, overlay or filter; from the past, back to now; opened from the overview, back to it' }),
  cmd({ id: 'partial.backup', keys: [{ ch: 'b' }], hint: 'back up', description: 'back up the selected file (moved to file.bak.<time>)', dangerous: true, views: ['partials'], footer: true }),
  cmd({ id: 'partial.keep', keys: [{ ch: 'm' }], hint: 'keep', description: "keep: it is complete, append the step's marker", dangerous: true, views: ['partials'], footer: true }),
  cmd({ id: 'partial.redo', keys: [{ ch: 'd' }], hint: 'redo', description: 'redo: back up and queue the step for relaunch', dangerous: true, views: ['partials'], footer: true }),
  cmd({ id: 'partial.skip', keys: [{ ch: 's' }], hint: 'skip', description: `skip: hide from the list (the journal keeps it; ${commandLabel('partial.unskip')} shows it again)`, views: ['partials'], footer: true }),
  cmd({ id: 'partial.unskip', keys: [], hint: 'unskip', description: 'show every skipped partial again (skips are kept across restarts)' }),
  cmd({ id: 'partial.conservative', keys: [{ ch: 'c' }], hint: 'conservative', description: 'conservative: back up + redo every almost-certain partial', dangerous: true, views: ['partials'], footer: true }),
  // docs/redrive.md: a named set action on the cells a filter names.
  cmd({ id: 'redrive.open', keys: [], hint: 'redrive', description: 'redrive by filter: :redrive class=RATE_LIMITED from=02:00 to=04:00 [action=relaunch|reset|skip|hold] [name=…] previews, y does it as one named action; :redrive undo [name] reverts it; :redrive drain launches a queue left over', dangerous: true, runs: true }),
  cmd({ id: 'undo', keys: [{ ch: 'u' }], hint: 'undo', description: 'undo the last backup (move it back to its name)', dangerous: true, footer: true }),
  cmd({ id: 'checkpoint.write', keys: [{ ch: 'w' }], hint: 'write checkpoint', description: 'rewrite checkpoint.md from the disk (old one kept)', dangerous: true, views: ['sources'], footer: true }),
  cmd({ id: 'run.launch', keys: [{ name: 'return' }], hint: 'launch', description: 'launch the selected step (retry/run; an escalated one: reset + relaunch, confirms)', runs: true, views: ['plan'], footer: true }),
  cmd({ id: 'run.autopilot', keys: [{ ch: 'a' }], hint: 'autopilot', description: 'autopilot on/off: keep launching within concurrency, caps and breakers', runs: true, views: ['plan', 'health'], footer: true }),
  cmd({ id: 'run.concurrency', keys: [], hint: 'concurrency', description: "set an agent's concurrency while it runs (:concurrency writer 4); journalled, a live Slurm array's %T follows", runs: true }),
  cmd({ id: 'run.cancel', keys: [{ ch: 'x' }], hint: 'cancel run', description: 'cancel the selected (or the only) run in flight', dangerous: true, runs: true, views: ['plan'], footer: true }),
  // Continue instead of restart (docs/domain.md, Half-products, the aggressive strategy).
  cmd({ id: 'run.continue', keys: [{ ch: 'C' }], hint: 'continue', description: "continue the selected cell's interrupted agent session (--resume) on its half-product; previews first", dangerous: true, runs: true, views: ['partials', 'plan'] }),
  cmd({ id: 'run.log', keys: [{ ch: 'o' }], hint: 'output', description: "show/hide the tall output pane (the selected run's last lines)", views: ['plan'] }),
  // docs/logs.md, "The pager": any attempt of the selected cell, full screen.
  cmd({ id: 'log.open', keys: [{ ch: 'L' }], hint: 'log', description: "the selected cell's logs, full screen: every attempt, search, follow, the error", views: ['progress', 'plan', 'health', 'partials'], footer: true }),
  cmd({ id: 'breaker.reset', keys: [{ ch: 'R' }], hint: 'reset breaker', description: "reset the selected agent's breaker (closed, failures forgotten)", dangerous: true, runs: true, views: ['health'], footer: true }),
  // Drain and pause (docs/drain.md): journalled, no file of the workspace changes, so no confirmation; --readonly strips them.
  cmd({ id: 'pause.toggle', keys: [{ ch: 'p' }], hint: 'pause', description: 'pause the selected cell (Plan) or agent (Health), or resume it: no new launch of it; what runs finishes', runs: true, views: ['plan', 'health'], footer: true }),
  cmd({ id: 'pause.drain', keys: [], hint: 'drain', description: 'drain: start nothing new of any kind; "drained" once the last run in flight ends', runs: true }),
  cmd({ id: 'pause.undrain', keys: [], hint: 'undrain', description: 'end the drain: launches may start again' , runs: true }),
  cmd({ id: 'pause.pause', keys: [], hint: 'pause', description: 'pause all (default), cell=UNIT/STEP, agent=NAME or executor=NAME', runs: true }),
  cmd({ id: 'pause.resume', keys: [], hint: 'resume', description: 'resume all (every pause), cell=UNIT/STEP, agent=NAME or executor=NAME', runs: true }),
  cmd({ id: 'breaker.hold', keys: [{ ch: 'H' }], hint: 'hold/release', description: "hold the selected agent's breaker open, or release it", dangerous: true, runs: true, views: ['health'], footer: true }),
  cmd({ id: 'cell.reset', keys: [{ ch: 'Z' }], hint: 'reset cell', description: "reset the selected cell's attempts, counters and escalation", dangerous: true, runs: true, views: ['health'], footer: true }),
  // docs/redo.md: the cell and everything built on it, backed up and queued as one undoable action.
  cmd({ id: 'cell.redo', keys: [{ ch: 'D' }], hint: 'redo from here', description: 'redo from here: back up the selected cell and everything built on it, queue them in plan order (previews first; u undoes; :redo unit/step agent=A prompt=P forks)', dangerous: true, views: ['progress', 'plan', 'partials', 'health'] }),
  cmd({ id: 'alarms.ack', keys: [{ ch: 'A' }], hint: 'acknowledge', description: 'acknowledge the "needs you" banner (journalled; the next escalation brings it back)', runs: true }),
  // Multi-select (docs/marks.md): marks are kept by item, so they survive live reorders.
  cmd({ id: 'marks.toggle', keys: [{ ch: ' ' }], hint: 'mark', description: 'mark or unmark the selected row and move down; b d m s (Partials), enter x (Plan), Z (Health) then act on every marked row, with one preview', views: ['partials', 'plan', 'health', 'history'], footer: true }),
  cmd({ id: 'marks.all', keys: [{ ch: 'V' }], hint: 'mark all', description: 'mark every visible row (the rows the / filter shows)', views: ['partials', 'plan', 'health', 'history'] }),
  cmd({ id: 'marks.clear', keys: [{ ch: 'U' }], hint: 'clear marks', description: "clear this view's marks", views: ['partials', 'plan', 'health', 'history'] }),
  cmd({ id: 'filter', keys: [{ ch: '/' }], hint: 'filter', description: 'filter by unit, step or status', footer: true }),
  cmd({ id: 'command', keys: [{ ch: ':' }], hint: 'command', description: `command line: ${COMMAND_NAMES.map((n) => `:${n}`).join(' ')}; a unique beginning is enough, tab completes` }),
  // A read-only instance asks the driver to hand over (nothing stops, nothing is written).
  cmd({ id: 'driver.handover', keys: [{ ch: 'T' }], hint: 'take over', description: 'take over: the driver hands its runs over (they keep running) and exits; this checkroom drives' }),
  cmd({ id: 'refresh', keys: [{ ch: 'r' }], hint: 'refresh', description: 'full rescan of the workspace' }),
  cmd({ id: 'help', keys: [{ ch: '?' }], hint: 'help', description: 'all keys', footer: true }),
  cmd({ id: 'quit', keys: [{ ch: 'q' }, { ch: 'c', ctrl: true }], hint: 'quit', description: 'quit (ctrl-c too)', footer: true }),
  // Recovery (docs/domain.md, Three sources of progress; What goes wrong; RESUME.md): src/ui/recovery/slice.ts.
  cmd({ id: 'resume.write', keys: [{ ch: 'W' }], hint: 'write RESUME.md', description: 'rewrite RESUME.md from the disk (old one kept)', dangerous: true, views: ['sources'], footer: true }),
  cmd({ id: 'todos.writeback', keys: [{ ch: 't' }], hint: 'write back todos', description: 'set to done the todos the disk proves done (todo table)', dangerous: true, views: ['sources'], footer: true }),
  cmd({ id: 'backups.open', keys: [{ ch: 'B' }], hint: 'backups', description: 'backups of the selected file: diff against it, restore one', views: ['partials', 'progress'], footer: true }),
  cmd({ id: 'recover.open', keys: [], hint: 'recover', description: 'the recover report (dry run): sources, where it stopped, what to rebuild' }),
  cmd({ id: 'recover.rebuild', keys: [{ ch: 'R' }], hint: 'rebuild', description: 'rebuild checkpoint.md and RESUME.md from the disk (old ones kept)', dangerous: true, scope: 'recover', footer: true }),
  cmd({ id: 'recover.close', keys: [{ name: 'escape' }], hint: 'close', description: 'close the recover report', scope: 'recover', footer: true }),
  cmd({ id: 'backups.restore', keys: [{ name: 'return' }], hint: 'restore', description: 'restore the selected backup (the current file is backed up first)', dangerous: true, scope: 'backups', footer: true }),
  cmd({ id: 'backups.side', keys: [{ ch: 's' }], hint: 'side by side', description: 'the diff side by side (the backup left, the current file right) or unified', scope: 'backups', footer: true }),
  cmd({ id: 'backups.close', keys: [{ name: 'escape' }], hint: 'close', description: 'close the backups panel', scope: 'backups', footer: true }),
  cmd({ id: 'offer.write', keys: [{ ch: 'y' }, { name: 'return' }], hint: 'write and quit', description: 'quitting: write RESUME.md first, then quit', dangerous: true, scope: 'offer', footer: true }),
  cmd({ id: 'offer.skip', keys: [{ ch: 'n' }, { ch: 'q' }], hint: 'just quit', description: 'quitting: quit without writing RESUME.md', scope: 'offer', footer: true }),
  cmd({ id: 'offer.back', keys: [{ name: 'escape' }], hint: 'stay', description: 'quitting: stay in the control room', scope: 'offer', footer: true }),
  cmd({ id: 'dialog.confirm', keys: [{ ch: 'y' }, { name: 'return' }], label: 'y/enter', hint: 'confirm', description: 'confirm the change shown', scope: 'dialog', footer: true }),
  cmd({ id: 'dialog.down', keys: [{ ch: 'j' }, { name: 'down' }], label: 'j/↓', hint: 'scroll', description: "scroll a long preview down (a redo's files, a redrive's cells)", scope: 'dialog' }),
  cmd({ id: 'dialog.up', keys: [{ ch: 'k' }, { name: 'up' }], label: 'k/↑', hint: 'scroll up', description: 'scroll a long preview up', scope: 'dialog' }),
  cmd({ id: 'dialog.leave', keys: [{ ch: 'l' }], hint: 'leave runs', description: 'quitting with runs in flight: leave them running (the next start adopts them)', scope: 'dialog' }),
  cmd({ id: 'dialog.cancel', keys: [{ ch: 'n' }, { name: 'escape' }], label: 'n/esc', hint: 'cancel', description: 'cancel: change nothing', scope: 'dialog', footer: true }),
  cmd({ id: 'pager.close', keys: [{ name: 'escape' }, { ch: 'q' }], label: 'esc/q', hint: 'close', description: 'close the log pager', scope: 'pager', footer: true }),
  cmd({ id: 'pager.up', keys: [{ ch: 'k' }, { name: 'up' }], label: 'k/↑', hint: 'up', description: 'one line up', scope: 'pager' }),
  cmd({ id: 'pager.down', keys: [{ ch: 'j' }, { name: 'down' }], label: 'j/↓', hint: 'down', description: 'one line down', scope: 'pager' }),
  cmd({ id: 'pager.pageUp', keys: [{ name: 'pageUp' }, { ch: 'b' }], label: 'PgUp/b', hint: 'page up', description: 'one page up', scope: 'pager' }),
  cmd({ id: 'pager.pageDown', keys: [{ name: 'pageDown' }, { ch: ' ' }], label: 'PgDn/space', hint: 'page down', description: 'one page down', scope: 'pager' }),
  cmd({ id: 'pager.top', keys: [{ ch: 'g' }, { name: 'home' }], hint: 'top', description: "the log's first line", scope: 'pager' }),
  cmd({ id: 'pager.bottom', keys: [{ ch: 'G' }, { name: 'end' }], hint: 'end', description: "the log's last line", scope: 'pager' }),
  cmd({ id: 'pager.prevAttempt', keys: [{ ch: '[' }], label: '[/]', hint: 'attempt', description: 'the previous attempt of the cell (] the next)', scope: 'pager', footer: true }),
  cmd({ id: 'pager.nextAttempt', keys: [{ ch: ']' }], hint: 'next attempt', description: 'the next attempt of the cell', scope: 'pager' }),
  cmd({ id: 'pager.search', keys: [{ ch: '/' }], hint: 'search', description: 'search the log (RE2 pattern; raw lines and readable events)', scope: 'pager', footer: true }),
  cmd({ id: 'pager.nextHit', keys: [{ ch: 'n' }], label: 'n/N', hint: 'next/prev hit', description: 'next match of the search (N: previous)', scope: 'pager', footer: true }),
  cmd({ id: 'pager.prevHit', keys: [{ ch: 'N' }], hint: 'prev hit', description: 'previous match of the search', scope: 'pager' }),
  cmd({ id: 'pager.error', keys: [{ ch: 'e' }], hint: 'error', description: 'jump to the error: the line the classifier blamed, else the last error-looking line', scope: 'pager', footer: true }),
  cmd({ id: 'pager.follow', keys: [{ ch: 'F' }], hint: 'follow', description: 'follow: stay at the end while the log grows', scope: 'pager', footer: true }),
  cmd({ id: 'pager.wrap', keys: [{ ch: 'w' }], hint: 'wrap', description: 'wrap long lines (or cut them at the edge)', scope: 'pager', footer: true }),
  cmd({ id: 'pager.raw', keys: [{ ch: 'r' }], hint: 'raw', description: 'raw lines as written (escaped) or readable events', scope: 'pager', footer: true }),
  cmd({ id: 'prompt.submit', keys: [{ name: 'return' }], hint: 'apply', description: 'apply the filter / run the command', scope: 'prompt', footer: true }),
  cmd({ id: 'prompt.complete', keys: [{ name: 'tab', shift: false }, { name: 'tab', shift: true }], label: 'tab', hint: 'complete', description: 'complete the command name; again for the next candidate (shift-tab: the previous)', scope: 'prompt', footer: true }),
  cmd({ id: 'prompt.older', keys: [{ name: 'up' }], label: '↑/↓', hint: 'history', description: 'the command line before (↓: after), kept in .checkroom/command-history', scope: 'prompt', footer: true }),
  cmd({ id: 'prompt.newer', keys: [{ name: 'down' }], hint: 'newer', description: 'the command line after', scope: 'prompt' }),
  cmd({ id: 'prompt.clear', keys: [{ ch: 'u', ctrl: true }], hint: 'clear', description: 'clear the line (every prompt: :, / and the log search)', scope: 'prompt' }),
  cmd({ id: 'prompt.word', keys: [{ ch: 'w', ctrl: true }], hint: 'delete word', description: 'delete the word before the cursor (every prompt)', scope: 'prompt' }),
  cmd({ id: 'prompt.cancel', keys: [{ name: 'escape' }], hint: 'cancel', description: 'cancel (clears the filter)', scope: 'prompt', footer: true }),
];

export const KEYMAP: readonly KeyCommand[] = ROWS;

const matches = (b: Binding, t: KeyToken): boolean => {
  if (!!b.ctrl !== t.ctrl) return false;
  if (b.name) return b.name === t.name && (b.shift === undefined || b.shift === t.shift);
  return t.name === null && b.ch === t.ch;
};

const appliesTo = (c: KeyCommand, view: ViewId): boolean => c.views === 'all' || c.views.includes(view);

/** The command a key means in this scope and view, ignoring read-only (callers refuse, with a message). */
export function matchCommand(t: KeyToken, scope: Scope, view: ViewId): KeyCommand | null {
  return KEYMAP.find((c) => c.scope === scope && appliesTo(c, view) && c.keys.some((b) => matches(b, t))) ?? null;
}

export const commandById = (id: CommandId): KeyCommand => KEYMAP.find((c) => c.id === id)!;

/** Footer hints for a scope and view; read-only drops every dangerous command, `hidden` the ones not offered now (a live file's destructive commands). */
export function footerHints(scope: Scope, view: ViewId, readonly: boolean, hidden: ReadonlySet<CommandId> = new Set()): { label: string; hint: string }[] {
  return KEYMAP.filter((c) => c.scope === scope && c.footer && appliesTo(c, view) && !(readonly && (c.dangerous || c.runs)) && !hidden.has(c.id)).map((c) => ({
    label: c.label,
    hint: c.hint,
  }));
}

/** Every command for the `?` overlay, with where it applies; read-only marks the disabled ones. */
export function helpRows(readonly: boolean): { keys: string; description: string; where: string; writes: boolean; disabled: boolean }[] {
  return KEYMAP.map((c) => ({
    keys: c.label,
    description: c.description,
    writes: c.dangerous,
    where: c.scope !== 'main' ? c.scope : c.views === 'all' ? 'all views' : c.views.join(', '),
    disabled: readonly && (c.dangerous || !!c.runs),
  }));
}
