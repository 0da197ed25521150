// The control room draws a full-screen frame in the alternate screen, and Ink's incremental
// renderer moves to its top with relative moves (cursor up N, erase N lines). One line the
// terminal wraps, or one frame whose height Ink misjudges, and every later frame lands a row
// off: closing the recover report left its last header row doubled. Here
// each frame starts from the top-left corner and clears what is below it, so an error never
// outlives its frame. What reaches the terminal is then only the cells that changed.

import { StringDecoder } from 'node:string_decoder';
import { TermGrid, blankRow, copyRow, type Row, type ScreenModelOf } from './grid.js';
import { CellWriter } from './cell-diff.js';

const ESC = '\u001b[';
const BEGIN_SYNC = `${ESC}?2026h`;
/** Ink's way to the top of its last frame: erase-line / cursor-up runs, a column reset. */
// eslint-disable-next-line no-control-regex -- it matches Ink's escape sequences on purpose
const TO_FRAME_TOP = /^(?:\u001b\[2K|\u001b\[1A|\u001b\[G|\u001b\[\d+A)+/;
const HOME = `${ESC}H`;
const CLEAR_BELOW = `${ESC}J`;

/** Rewrite one of Ink's writes: a frame gets an absolute start and a clear below it. */
export function anchorFrame(chunk: string, first: boolean): string {
  const sync = chunk.startsWith(BEGIN_SYNC) ? BEGIN_SYNC : '';
  const body = chunk.slice(sync.length);
  const m = TO_FRAME_TOP.exec(body);
  if (m) return `${sync}${HOME}${body.slice(m[0].length)}${CLEAR_BELOW}`;
  // The first frame: drawn from the corner of a fresh alternate screen.
  if (first && body.length > 0 && !body.startsWith(ESC)) return `${sync}${HOME}${body}${CLEAR_BELOW}`;
  return chunk;
}

// eslint-disable-next-line no-control-regex -- screen switches are recognised on purpose
const ALT_SCREEN = /^\u001b\[\?(?:1049|1047|47)[hl]$/;
// eslint-disable-next-line no-control-regex -- and so is the cursor's visibility
const CURSOR = /^\u001b\[\?25([hl])$/;

/**
 * A view of the terminal whose writes are anchored frames, painted as cell diffs: every write is interpreted into a model of the screen Ink wants (TermGrid), and
 * only the cells that differ from what the terminal shows are sent. Until the terminal's
 * content is known (the first frame, after a resize or a screen switch) the frame is painted
 * whole on a cleared screen. Everything but `write` is the terminal's own. `modelOf` swaps the
 * screen model (the bench weighs @xterm/headless: docs/decisions/terminal-model.md).
 */
export function anchoredStdout(
  stdout: NodeJS.WriteStream,
  inCharset?: (text: string) => string,
  modelOf: ScreenModelOf = (cols, height, clip) => new TermGrid(cols, height, clip),
): NodeJS.WriteStream {
  const size = (): [number, number] => [Math.max(1, stdout.columns || 80), Math.max(1, stdout.rows || 24)];
  // Clipped at the margin: see TermGrid's `clip`.
  const want = modelOf(...size(), true);
  let shown: Row[] | null = null;
  let cursorShown = false;
  let first = true;
  const decoder = new StringDecoder('utf8');
  const paint = (): string => {
    const w = new CellWriter(want.cols);
    const dirty = shown === null ? (want.markAll(), want.takeDirty()) : want.takeDirty();
    const clear = shown === null ? '\u001b[m\u001b[H\u001b[2J' : '';
    const before = shown ?? Array.from({ length: want.height }, () => blankRow(want.cols));
    for (const y of dirty) {
      w.row(y, before[y]!, want.rows[y]!);
      before[y] = copyRow(want.rows[y]!);
    }
    shown = before;
    if (cursorShown) w.place(...want.cursor());
    return clear + w.take();
  };
  const write = (chunk: string | Uint8Array, ...rest: unknown[]): boolean => {
    const raw = typeof chunk === 'string' ? chunk : decoder.write(Buffer.from(chunk));
    // `inCharset`: a terminal that takes ASCII only, never wider than the text.
    const text = inCharset ? inCharset(raw) : raw;
    const anchored = anchorFrame(text, first);
    if (anchored !== text || (first && text.length > 0 && !text.startsWith(ESC))) first = false;
    const pass = want.write(anchored);
    for (const p of pass) {
      if (ALT_SCREEN.test(p)) shown = null;
      const c = CURSOR.exec(p);
      if (c) cursorShown = c[1] === 'h';
    }
    const lead = pass.filter((p) => p === BEGIN_SYNC).join('');
    const out = lead + paint() + pass.filter((p) => p !== BEGIN_SYNC).join('');
    return (stdout.write as (...a: unknown[]) => boolean)(out, ...rest);
  };
  // Before Ink's own listener (it subscribes when it mounts, after this): the terminal may
  // have reflowed or cut what it showed, so the next paint is whole. When Ink's frame did not
  // change with the size, it writes nothing; the repaint then runs by itself.
  stdout.on('resize', () => {
    want.resize(...size());
    shown = null;
    setImmediate(() => {
      if (shown === null) stdout.write(paint());
    });
  });
  return new Proxy(stdout, {
    get(target, prop) {
      if (prop === 'write') return write;
      const v = Reflect.get(target, prop, target) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}
