import type { StoreApi } from 'zustand/vanilla';
import type { NewJournalEvent } from '../../run/journal/journal.js';
import { presetOf } from '../../pipeline/presets/index.js';
import type { CommandId } from './keymap.js';
import { clampCursors } from '../views/nav.js';
import { goneUpdate, selectedPartial } from '../store/selected.js';
import type { AppState } from '../store/types.js';
import type { TriageActions } from '../triage/slice.js';
import type { AgentsActions } from '../agents/slice.js';
import type { RecoveryActions } from '../recovery/slice.js';
import type { PagerActions } from '../pager/slice.js';
import { takeOverKey } from './handover-key.js';
import { backToNow } from '../history/time-travel.js';
import { postMortemKey, travelKey } from '../history/keys.js';
import { commandPauseRequest, togglePauseRequest } from '../agents/pause.js';
import { clearMarksKey, markAllKey, markKey } from '../marks/keys.js';
import type { MarkView } from '../marks/marks.js';

// What each key command does, as a table beside KEYMAP: the store looks a command up here
// instead of walking an 80-line switch. The table's type makes the compiler check that
// every CommandId has a row, except those answered before it (movement and view switches,
// nav.ts) or never run (the prompt line's own keys, read by feedPrompt). A row names the
// part of the kit it acts through (a slice, the journal, the store), never more.

/** The store itself: read the state, change it. */
export interface StorePort {
  get: () => AppState;
  set: StoreApi<AppState>['setState'];
}

/** The slices' actions, built once per store; `agents` is null without a supervisor. */
export interface SlicePorts {
  triage: TriageActions;
  agents: AgentsActions | null;
  recovery: RecoveryActions;
  pager: PagerActions;
}

/** The supervisor's journal, when agents run (a skip is journalled, so it survives a restart), and the clock it is stamped with. */
export interface NotePort {
  note: ((e: NewJournalEvent) => Promise<void>) | null;
  now: () => Date;
  track: (p: Promise<unknown>) => void;
}

/** The detail pane and the confirmation dialog (store-detail.ts, store-confirm.ts). */
export interface PanePort {
  openDetail: () => void;
  confirmChecked: () => void;
}

/** What handlers act through, as store.ts builds it; each row takes the part it uses. */
export type CommandKit = StorePort & SlicePorts & NotePort & PanePort;

/** `s` is the state when the key was read; `id` the command (for handlers shared by several). */
/** `args`: the words after a `:` command's name, '' from a key. */
export type CommandHandler = (k: CommandKit, s: AppState, id: CommandId, args: string) => void;

/** Answered by the store before the table: movement, paging and view switches (nav.ts). */
export type NavCommandId = Extract<CommandId, `move.${string}` | `page.${string}` | `view.${string}`>;

/** The prompt line's keys: feedPrompt reads them; run() does nothing with them. */
export type PromptCommandId = Extract<CommandId, `prompt.${string}`>;

export type TableCommandId = Exclude<CommandId, NavCommandId | PromptCommandId>;

const noAgents = (k: StorePort): void => k.set({ message: { text: `no agent supervisor: ${k.get().agents.why ?? 'not available'}`, tone: 'warn' } });

/** With a supervisor, `f`; without one, say why nothing runs. */
const withAgents =
  (f: (a: AgentsActions) => void) =>
  (k: StorePort & Pick<SlicePorts, 'agents'>): void =>
    k.agents ? f(k.agents) : noAgents(k);

/** A key that acts on the view's marked rows when it has any (docs/marks.md), else on the selected one. */
const orMarked =
  (view: MarkView, marked: CommandHandler, single: CommandHandler): CommandHandler =>
  (k, s, id, args) =>
    (s.view === view && s.marks[view].length ? marked : single)(k, s, id, args);

const skip = (k: StorePort & NotePort, s: AppState): void => {
  const p = selectedPartial(s);
  if (!p) return k.set({ message: { text: 'nothing selected', tone: 'warn' } });
  if ('gone' in p) return k.set(goneUpdate(s, 'partials', p.gone));
  const item = p.item;
  // Journalled, so the skip survives a restart.
  if (k.note) k.track(k.note({ type: 'skip', at: k.now().getTime(), path: item.file.path, on: true }).catch(() => undefined));
  const kept = k.note ? ' (kept across restarts; the journal records it)' : ' for this session';
  return k.set((st) => {
    const skipped = [...st.skipped, item.file.path];
    return { skipped, message: { text: `skipped ${item.file.path}${kept}`, tone: 'info' }, ...clampCursors({ ...st, skipped }, true) };
  });
};

const unskip = (k: StorePort & NotePort, s: AppState): void => {
  if (s.skipped.length === 0) return k.set({ message: { text: 'nothing is skipped', tone: 'info' } });
  const at = k.now().getTime();
  if (k.note) for (const path of s.skipped) k.track(k.note({ type: 'skip', at, path, on: false }).catch(() => undefined));
  return k.set((st) => ({ skipped: [], message: { text: `${st.skipped.length} skipped partial${st.skipped.length === 1 ? '' : 's'} shown again`, tone: 'info' }, ...clampCursors({ ...st, skipped: [] }, true) }));
};

const back = (k: StorePort, s: AppState): void => {
  if (s.help.open) return k.set({ help: { open: false, offset: 0 } });
  if (s.detail) return k.set({ detail: null });
  if (s.postMortem) return k.set({ postMortem: null });
  if (s.filter) return k.set((st) => ({ filter: '', message: { text: 'filter cleared', tone: 'info' }, ...clampCursors({ ...st, filter: '' }, true) }));
  if (s.past) return k.set(backToNow());
  // Back to the overview (docs/many.md): this room ends as `l` at quit would, its runs left to their keepers.
  if (s.fromOverview) return k.set((st) => ({ message: null, quit: true, agents: { ...st.agents, quitMode: 'leave' } }));
  return k.set({ message: null });
};

const writeCheckpoint = (k: StorePort & Pick<SlicePorts, 'triage'>, s: AppState): void => {
  // A preset without checkpoint.md (gate files keep their own record) has nothing to write.
  const preset = presetOf(s.ws.preset);
  if (!preset.has.checkpoint) return k.set({ message: { text: preset.words.noCheckpoint, tone: 'warn' } });
  return k.triage.requestCheckpoint();
};

export const COMMAND_HANDLERS: Record<TableCommandId, CommandHandler> = {
  open: (k) => k.openDetail(),
  'history.travel': travelKey,
  'history.postmortem': postMortemKey,
  back,
  help: (k, s) => k.set({ help: { open: !s.help.open, offset: 0 } }),
  'marks.toggle': markKey,
  'marks.all': markAllKey,
  'marks.clear': clearMarksKey,
  filter: (k, s) => k.set({ prompt: { kind: 'filter', text: s.filter } }),
  command: (k) => k.set({ prompt: { kind: 'command', text: '' } }),
  quit: (k) => (k.agents?.requestQuit(false) ? undefined : k.recovery.quit()),
  refresh: (k) => k.triage.refresh(),
  'driver.handover': takeOverKey,
  'partial.skip': orMarked('partials', (k) => k.triage.requestMarked('skip'), skip),
  'partial.unskip': unskip,
  'partial.backup': orMarked('partials', (k) => k.triage.requestMarked('backup'), (k) => k.triage.requestMove(false)),
  'partial.redo': orMarked('partials', (k) => k.triage.requestMarked('redo'), (k) => k.triage.requestMove(true)),
  'partial.keep': orMarked('partials', (k) => k.triage.requestMarked('keep'), (k) => k.triage.requestKeep()),
  'partial.conservative': (k) => k.triage.requestConservative(),
  undo: (k) => k.triage.requestUndo(),
  'checkpoint.write': writeCheckpoint,
  'dialog.confirm': (k) => k.confirmChecked(),
  'dialog.leave': (k) => k.agents?.leave(),
  'dialog.cancel': (k) => k.set({ dialog: null, message: { text: 'cancelled: nothing was changed', tone: 'info' } }),
  'run.launch': orMarked('plan', withAgents((a) => a.requestMarkedLaunch()), withAgents((a) => a.launchSelected())),
  'run.autopilot': withAgents((a) => a.toggleAutopilot()),
  'run.concurrency': (k, _s, _id, args) => (k.agents ? k.agents.setConcurrency(args) : noAgents(k)),
  'run.cancel': orMarked('plan', withAgents((a) => a.requestMarkedCancel()), withAgents((a) => a.requestCancel())),
  'run.continue': withAgents((a) => a.requestContinue()),
  'run.log': (k) => k.set((st) => ({ agents: { ...st.agents, logOpen: !st.agents.logOpen } })),
  'log.open': (k) => k.pager.open(),
  // The pager's own keys (store-pager.ts): one row each.
  'pager.close': (k) => k.pager.close(),
  'pager.up': (k) => k.pager.scroll(-1),
  'pager.down': (k) => k.pager.scroll(1),
  'pager.pageUp': (k, s) => k.pager.scroll(-Math.max(1, (s.pager?.rows ?? 2) - 1)),
  'pager.pageDown': (k, s) => k.pager.scroll(Math.max(1, (s.pager?.rows ?? 2) - 1)),
  'pager.top': (k) => k.pager.scroll('top'),
  'pager.bottom': (k) => k.pager.scroll('bottom'),
  'pager.prevAttempt': (k) => k.pager.attempt(-1),
  'pager.nextAttempt': (k) => k.pager.attempt(1),
  'pager.search': (k) => k.pager.search(),
  'pager.nextHit': (k) => k.pager.hit(1),
  'pager.prevHit': (k) => k.pager.hit(-1),
  'pager.error': (k) => k.pager.error(),
  'pager.follow': (k) => k.pager.toggle('follow'),
  'pager.wrap': (k) => k.pager.toggle('wrap'),
  'pager.raw': (k) => k.pager.toggle('raw'),
  // Drain and pause (docs/drain.md): the planner reads the state or the `:` line's words.
  'pause.toggle': (k, s) => withAgents((a) => a.pause(togglePauseRequest(s)))(k),
  'pause.drain': (k, _s, _id, args) => withAgents((a) => a.pause(commandPauseRequest('drain', args)))(k),
  'pause.undrain': (k, _s, _id, args) => withAgents((a) => a.pause(commandPauseRequest('undrain', args)))(k),
  'pause.pause': (k, _s, _id, args) => withAgents((a) => a.pause(commandPauseRequest('pause', args)))(k),
  'pause.resume': (k, _s, _id, args) => withAgents((a) => a.pause(commandPauseRequest('resume', args)))(k),
  'breaker.reset': withAgents((a) => a.requestBreaker('reset')),
  'breaker.hold': withAgents((a) => a.requestBreaker('hold')),
  'cell.reset': orMarked('health', withAgents((a) => a.requestMarkedReset()), withAgents((a) => a.requestResetCell())),
  'redrive.open': (k, _s, _id, args) => (k.agents ? k.agents.requestRedrive(args) : k.set({ message: { text: 'redrive needs agents: no agents section in checkroom.yaml', tone: 'warn' } })),
  'dialog.down': (k) => k.set((st) => scrollDialog(st, 1)),
  'dialog.up': (k) => k.set((st) => scrollDialog(st, -1)),
  'cell.redo': (k, _s, _id, args) => k.triage.requestRedo(args),
  'alarms.ack': withAgents((a) => a.ackAlarms()),
  // The recovery slice's (store-recovery.ts): one row each, no second switch behind them.
  'resume.write': (k) => k.recovery.requestResume(),
  'todos.writeback': (k) => k.recovery.requestWriteBack(),
  'recover.open': (k) => k.recovery.openReport(),
  'recover.rebuild': (k) => k.recovery.requestRebuild(),
  'recover.close': (k) => k.recovery.closeReport(),
  'backups.open': (k) => k.recovery.openBackups(),
  'backups.restore': (k) => k.recovery.requestRestore(),
  'backups.close': (k) => k.recovery.closeBackups(),
  'backups.side': (k) => k.set((st) => (st.recovery.backups ? { recovery: { ...st.recovery, backups: { ...st.recovery.backups, side: !st.recovery.backups.side, offset: 0 } } } : {})),
  'offer.write': (k) => k.recovery.offerWrite(),
  'offer.skip': (k) => k.recovery.offerSkip(),
  'offer.back': (k) => k.recovery.offerBack(),
};

/** j/k on a long dialog: its first shown line moves, within its lines (the view clamps to the screen). */
function scrollDialog(st: AppState, by: number): Partial<AppState> {
  if (!st.dialog) return {};
  const top = st.dialogScroll?.of === st.dialog ? st.dialogScroll.top : 0;
  return { dialogScroll: { of: st.dialog, top: Math.max(0, Math.min(top + by, st.dialog.lines.length - 1)) } };
}

/** The row for `id`, or null for a command answered elsewhere. */
export const handlerOf = (id: CommandId): CommandHandler | null => (COMMAND_HANDLERS as Partial<Record<CommandId, CommandHandler>>)[id] ?? null;
