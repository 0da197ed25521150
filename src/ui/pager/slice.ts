import { readJournal } from '../../run/journal/journal.js';
import { attemptLogs, cellAttempts } from '../../run/logs/attempts.js';
import type { LogIndex } from '../../run/logs/line-index.js';
import { openAttemptLog } from '../../run/logs/open.js';
import { errorLine, findLineWithin, lineMatches } from '../../run/logs/search.js';
import { PatternError, compilePattern, type SafePattern } from '../../pipeline/safe-pattern.js';
import type { KeyToken } from '../keys/keys.js';
import { editLine } from '../keys/line-edit.js';
import { bottomTop, closedPager, topFor, type PagerUi } from './state.js';
import { selectedHealth, selectedPartial, selectedPlan, selectedRow } from '../store/selected.js';
import type { KitDeps } from '../store/kit.js';
import type { AppState } from '../store/types.js';

// The log pager's effects (docs/logs.md, "The pager"): `L` on a cell reads the journal for
// its attempts and opens the latest; keys move a window over the log (LogIndex: lazily
// indexed, read a window at a time), switch attempts, search, jump to the error, follow. The
// index is the one piece of state that is not plain data, so it lives here, beside the
// pager's state in the store. Follow polls the file's size every FOLLOW_MS.

export const FOLLOW_MS = 250;
/** Lines one search key looks at before it says where it stopped (about a second on a busy machine). */
export const SEARCH_SLICE_LINES = 50_000;

export interface PagerActions {
  open(): void;
  close(): void;
  resize(rows: number): void;
  /** A key typed into the search prompt; true when it was taken. */
  typeKey(t: KeyToken): boolean;
  scroll(by: number | 'top' | 'bottom'): void;
  attempt(dir: 1 | -1): void;
  toggle(what: 'follow' | 'wrap' | 'raw'): void;
  search(): void;
  hit(dir: 1 | -1): void;
  error(): void;
  dispose(): void;
}

/** The cell under the cursor in the views that have one; a reason when there is none. */
export function pickedCell(s: AppState): { unit: string; step: string } | { why: string } {
  const none = { why: 'no cell selected here: pick a cell (Progress, Plan, Health or Partials) and press L' };
  if (s.detail) return { unit: s.detail.unit, step: s.detail.step };
  if (s.view === 'progress') {
    const r = selectedRow(s);
    const c = r && 'item' in r ? r.item.cells[s.cell.col] : undefined;
    return c ? { unit: c.unit, step: c.step } : none;
  }
  if (s.view === 'plan') {
    const p = selectedPlan(s);
    if (!p || 'gone' in p) return none;
    const it = p.item;
    const c = it.kind === 'flight' ? it.flight : it.kind === 'queued' ? it.redo : it.step;
    return c.unit && c.step ? { unit: c.unit, step: c.step } : none;
  }
  if (s.view === 'health') {
    const h = selectedHealth(s);
    return h && 'item' in h && h.item.kind === 'cell' ? { unit: h.item.cell.unit, step: h.item.cell.step } : { why: 'an agent row has no log: pick a cell row and press L' };
  }
  if (s.view === 'partials') {
    const p = selectedPartial(s);
    return p && 'item' in p ? { unit: p.item.file.unit, step: p.item.file.step } : none;
  }
  return none;
}

/** One pager's reading: the index, the compiled search, the follow timer. */
class PagerSession {
  private index: LogIndex | null = null;
  private pattern: SafePattern | null = null;
  private timer: ReturnType<typeof setInterval> | null = null;

  constructor(private readonly k: KitDeps) {}

  private pager = (): PagerUi | null => this.k.get().pager;
  put = (change: Partial<PagerUi>): void => this.k.set((st) => (st.pager ? { pager: { ...st.pager, ...change } } : {}));

  /** The window at `top` (clamped), read from the index. */
  windowAt(top: number, extra: Partial<PagerUi> = {}): void {
    const p = this.pager();
    const index = this.index;
    if (!p || !index) return;
    const rows = extra.rows ?? p.rows;
    index.ensure(top + rows);
    const total = index.knownLines;
    const t = Math.max(0, Math.min(top, index.complete ? bottomTop(total, rows) : top));
    this.put({ ...extra, top: t, lines: index.read(t, rows), total, complete: index.complete });
  }

  get hasLog(): boolean {
    return this.index !== null;
  }

  stopFollow(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  toBottom(extra: Partial<PagerUi> = {}): void {
    const p = this.pager();
    if (!p || !this.index) return;
    this.index.ensureAll();
    this.windowAt(bottomTop(this.index.knownLines, extra.rows ?? p.rows), extra);
  }

  startFollow(): void {
    this.stopFollow();
    this.put({ follow: true });
    this.toBottom();
    this.timer = setInterval(() => {
      const p = this.pager();
      if (!p || !p.follow || !this.index) return this.stopFollow();
      try {
        if (this.index.refresh()) this.toBottom();
      } catch (err) {
        this.stopFollow();
        this.put({ follow: false, note: `follow stopped: ${(err as Error).message}` });
      }
    }, FOLLOW_MS);
    this.timer.unref?.();
  }

  /** Attempt `at` of the pager's cell: a live one following its end, a finished one at its top. */
  show(at: number): void {
    const p = this.pager();
    if (!p) return;
    this.stopFollow();
    this.index = null;
    const a = p.attempts[at];
    if (!a) return this.put({ at, error: 'no attempt of this cell in the journal: it was never launched here', lines: [], total: 0 });
    const opened = openAttemptLog(this.k.get().ws.root, a);
    if ('error' in opened) return this.put({ at, rel: '', error: opened.error, lines: [], total: 0, top: 0, hit: null, mark: null, follow: false });
    this.index = opened.index;
    this.put({ at, rel: opened.rel, error: null, hit: null, mark: null, note: null, follow: false });
    if (a.live) this.startFollow();
    else this.windowAt(0);
  }

  search(text: string): void {
    try {
      this.pattern = compilePattern(text);
    } catch (err) {
      this.pattern = null;
      return this.put({ typing: null, query: null, hit: null, note: err instanceof PatternError ? `/${text}: ${err.reason}` : (err as Error).message });
    }
    this.put({ typing: null, query: text, note: null, searchFrom: null });
    this.hitFrom(this.pager()!.top, 1);
  }

  /** The next hit from `from` in `dir`, going round the log's end once, a slice of SEARCH_SLICE_LINES per key. */
  hitFrom(from: number, dir: 1 | -1): void {
    const p = this.pager();
    const { index, pattern } = this;
    if (!p || !index || !pattern) return;
    const test = (raw: string) => lineMatches(pattern, raw);
    let r = findLineWithin(index, test, from, dir, SEARCH_SLICE_LINES);
    let note: string | null = null;
    if (r.line === null && r.stopped === null) {
      r = findLineWithin(index, test, dir === 1 ? 0 : index.ensureAll() - 1, dir, SEARCH_SLICE_LINES);
      note = dir === 1 ? 'wrapped to the top' : 'wrapped to the end';
    }
    if (r.stopped !== null) {
      const [a, b] = dir === 1 ? [from, r.stopped] : [r.stopped, from];
      return this.put({ hit: null, searchFrom: r.stopped, note: `/${p.query}: no match in lines ${a + 1}-${b + 1} yet; ${dir === 1 ? 'n' : 'N'} searches on` });
    }
    if (r.line === null) return this.put({ hit: null, searchFrom: null, note: `/${p.query}: no match` });
    this.stopFollow();
    this.windowAt(topFor(r.line, p.rows), { hit: r.line, searchFrom: null, note, follow: false });
  }

  error(): void {
    const p = this.pager();
    const a = p?.attempts[p.at];
    if (!p || !a || !this.index) return;
    const line = errorLine(this.index, a.error);
    if (line === null) return this.put({ note: 'no line reads as an error in this log' });
    this.stopFollow();
    this.windowAt(topFor(line, p.rows), { follow: false, mark: line, note: a.error ? `the error: ${a.error}` : 'the last line that reads as an error' });
  }

  close(): void {
    this.stopFollow();
    this.index = null;
    this.pattern = null;
  }
}

/** A read that fails (the log removed under the pager) is a note, never a crash. */
const guarded =
  (put: PagerSession['put']) =>
  (f: () => void): void => {
    try {
      f();
    } catch (err) {
      put({ note: `cannot read the log: ${(err as Error).message}` });
    }
  };

/** `L`: the journal's attempts of the picked cell, the latest shown. */
const opener =
  ({ get, set, track }: KitDeps, session: PagerSession, guard: (f: () => void) => void) =>
  (): void => {
    const s = get();
    const cell = pickedCell(s);
    if ('why' in cell) return set({ message: { text: cell.why, tone: 'warn' } });
    const root = s.ws.root;
    track(
      readJournal(root).then(({ events }) => {
        const attempts = cellAttempts(attemptLogs(events, root), cell.unit, cell.step);
        if (attempts.length === 0) return set({ message: { text: `${cell.unit} ${cell.step}: no attempt in the journal, so no log (launch it first)`, tone: 'info' } });
        const rows = get().pager?.rows ?? Math.max(3, get().pageSize + 4);
        set({ pager: { ...closedPager(cell.unit, cell.step, attempts), rows } });
        guard(() => session.show(attempts.length - 1));
      }),
    );
  };

export function createPager(k: KitDeps): PagerActions {
  const { get, set } = k;
  const session = new PagerSession(k);
  const guard = guarded(session.put);
  const pager = (): PagerUi | null => get().pager;
  const open = opener(k, session, guard);

  const typeKey = (t: KeyToken): boolean => {
    const p = pager();
    if (!p || p.typing === null) return false;
    if (t.name === 'escape') session.put({ typing: null });
    else if (t.name === 'return') guard(() => (p.typing ? session.search(p.typing) : session.put({ typing: null })));
    else {
      const typing = editLine(p.typing, t);
      if (typing !== null) session.put({ typing });
    }
    return true;
  };

  const scroll = (by: number | 'top' | 'bottom'): void =>
    guard(() => {
      const p = pager();
      if (!p || !session.hasLog) return;
      if (by === 'bottom') return session.toBottom();
      // Moving up leaves follow, as in less: the operator is reading.
      if (p.follow && (by === 'top' || by < 0)) {
        session.stopFollow();
        session.put({ follow: false });
      }
      session.windowAt(by === 'top' ? 0 : p.top + by);
    });

  const toggle = (what: 'follow' | 'wrap' | 'raw'): void =>
    guard(() => {
      const p = pager();
      if (!p) return;
      if (what !== 'follow') return session.put({ [what]: !p[what] });
      if (!p.follow) return session.startFollow();
      session.stopFollow();
      session.put({ follow: false });
    });

  return {
    open,
    close: () => {
      session.close();
      set({ pager: null });
    },
    resize: (rows) => {
      const p = pager();
      if (!p || p.rows === rows) return;
      guard(() => (session.hasLog ? session.windowAt(p.top, { rows }) : session.put({ rows })));
    },
    typeKey,
    scroll,
    attempt: (dir) => {
      const p = pager();
      if (!p) return;
      const at = p.at + dir;
      if (at < 0 || at >= p.attempts.length) return session.put({ note: dir < 0 ? 'this is the first attempt' : 'this is the latest attempt' });
      guard(() => session.show(at));
    },
    toggle,
    search: () => session.put({ typing: '' }),
    hit: (dir) =>
      guard(() => {
        const p = pager();
        if (!p || p.query === null) return session.put({ note: 'no search yet: / to search' });
        session.hitFrom(p.searchFrom ?? (p.hit ?? p.top) + dir, dir);
      }),
    error: () => guard(() => session.error()),
    dispose: () => session.close(),
  };
}
