import type { WorkspaceState } from '../../types.js';
import type { CommandId } from '../keys/keymap.js';
import type { KeyToken } from '../keys/keys.js';
import type { LivePort } from '../agents/live-port.js';
import type { Watching } from '../../live/live-workspace.js';
import type { RedoEntry } from './select.js';
import type { Tail } from '../views/tail.js';
import type { Move } from '../triage/actions.js';
import type { CheckpointDiff } from '../views/checkpoint-diff.js';
import type { ViewId } from '../views/views.js';
import type { Picks } from './picked.js';
import type { Seen } from '../keys/confirm-guard.js';
import type { RedoPreview } from '../../redo/types.js';
import type { Held } from '../agents/held.js';
import type { RecoveryPending, RecoveryUi, SessionOptions } from '../recovery/types.js';
import type { AgentAction, AgentsOptions, AgentsUi } from '../agents/types.js';
import type { PagerUi } from '../pager/state.js';
import type { HistoryFeedOptions, HistoryUi, Past } from '../history/types.js';
import type { Marks, MarkView } from '../marks/marks.js';
import type { Refused } from '../marks/words.js';
import type { ActPort } from '../../socket/acts.js';

export type Tone = 'info' | 'ok' | 'warn' | 'fail';

export interface Message {
  text: string;
  tone: Tone;
}

export interface Detail {
  unit: string;
  step: string;
  tail: Tail | null;
  /** Why no tail is shown (no file, unreadable), or null. */
  note: string | null;
  loading: boolean;
}

/** What a confirmation will do when confirmed: plain data, planned before anything changes. */
export type Pending =
  /** `refused`: a marked-set action's (marks.ts): the files it leaves alone, and why, said again in the result. */
  | { type: 'moves'; moves: Move[]; redo: { unit: string; step: string; path: string }[]; refused?: Refused[] }
  | { type: 'keeps'; keeps: { move: Move; marker: string }[]; refused: Refused[] }
  | { type: 'skips'; paths: string[] }
  | { type: 'keep'; move: Move; marker: string }
  | { type: 'undo'; group: UndoGroup }
  | { type: 'redo'; preview: RedoPreview }
  | { type: 'checkpoint'; diff: CheckpointDiff; backup: string | null }
  | { type: 'recovery'; action: RecoveryPending }
  | { type: 'agents'; action: AgentAction };

export interface Confirm {
  title: string;
  /** Exactly which files change and how, one line each. */
  lines: string[];
  pending: Pending;
  /** The clock reading the backup names were planned with; the run uses the same. */
  at: number;
  /** The files it touches as they were when it was shown; confirm refuses if one changed or has a live writer (confirm-guard.ts). */
  seen?: Seen[];
  /** A dialog for a view's marked rows: confirming it acts on them, and their marks go (marks.ts). */
  marked?: MarkView;
}

export interface UndoGroup {
  /** Names it in the journal (undo_pushed / undo_popped), so a restart keeps the undo stack. */
  id: string;
  label: string;
  moves: Move[];
  /** A redo from here (docs/redo.md): undo restores every backup and unqueues these cells. */
  redo?: { cells: { unit: string; step: string; path: string; claim: string | null }[]; from?: { unit: string; step: string } };
}

export interface Prompt {
  kind: 'filter' | 'command';
  text: string;
  /** Tab's cycle: what was typed before the first tab, and which candidate the next tab shows. */
  tab?: { stem: string; next: number };
  /** ↑/↓ on the `:` line: how far back in `commandHistory` the text was recalled from (0: the last). */
  recall?: number;
}

export interface UiState {
  view: ViewId;
  cursors: Record<ViewId, number>;
  /** The key of the item each cursor was put on; the cursor follows it through live reorders (picked.ts). */
  picked: Picks;
  /** The marked rows of Partials, Plan, Health and History, by item key (marks.ts); not journalled. */
  marks: Marks;
  cell: { row: number; col: number };
  detail: Detail | null;
  help: { open: boolean; offset: number };
  prompt: Prompt | null;
  /** The `:` lines submitted, oldest first, for ↑/↓; kept in .checkroom/command-history (docs/keys.md, The command line). */
  commandHistory: readonly string[];
  filter: string;
  dialog: Confirm | null;
  /** How far a dialog longer than the screen is scrolled (j/k): kept beside the dialog it scrolls, never in it, so the dialog stays the object it was opened as. */
  dialogScroll: { of: Confirm; top: number } | null;
  message: Message | null;
  redoQueue: RedoEntry[];
  skipped: string[];
  undo: UndoGroup[];
  /** What is being done on disk right now, or null. */
  busy: string | null;
  quit: boolean;
  pageSize: number;
  /** RESUME.md drift, the recover report, the backups panel, the quit offer (store-recovery.ts). */
  recovery: RecoveryUi;
  /** The agent supervisor as last flushed (store-agents.ts, agents-feed.ts). */
  agents: AgentsUi;
  /** Files of the Partials view that a process holds open for writing or that changed within the quiet window (held.ts). */
  held: Held;
  /** The journal as a timeline (the History view), the moment shown instead of now, the open post-mortem (docs/history.md). */
  history: HistoryUi;
  past: Past | null;
  postMortem: string | null;
  /** The full-screen log pager (store-pager.ts), or null. */
  pager: PagerUi | null;
}

export interface AppState extends UiState {
  ws: WorkspaceState;
  watching: Watching;
  readonly: boolean;
  ascii: boolean;
  /** Opened from the overview (docs/many.md): Esc with nothing to close goes back to it. */
  fromOverview: boolean;
  setWorkspace(ws: WorkspaceState, watching?: Watching): void;
  setPageSize(n: number): void;
  /** The pager's body rows, from its component's height. */
  pagerResize(rows: number): void;
  /** One keypress, routed by priority: dialog, prompt line, help overlay, then the view. */
  feed(t: KeyToken): void;
  run(id: CommandId): void;
  say(text: string, tone?: Tone): void;
  /** Resolves when every disk action started so far has finished (the entry waits before exit). */
  idle(): Promise<void>;
  /** A redrive or a redo asked through the control socket (remote.ts); null without a supervisor. */
  remote: ActPort | null;
}

export interface StoreOptions {
  live: LivePort;
  readonly?: boolean;
  ascii?: boolean;
  /** Opened from the overview: Esc with nothing to close ends this room, its runs left running. */
  fromOverview?: boolean;
  /** The clock for backup names (tests pin it). */
  now?: () => Date;
  /** Session behaviours of an interactive control room (the entry turns them on; tests opt in). */
  session?: SessionOptions;
  /** The agent supervisor, when this control room drives (or watches) runs. */
  agents?: AgentsOptions;
  /** Why there is no supervisor (shown in the Health view). */
  agentsWhy?: string;
  /** The History view's journal feed (history-feed.ts); false: none (tests that count renders). */
  history?: HistoryFeedOptions | false;
}
