// The control room draws a full-screen frame in the alternate screen, and Ink's incremental
// renderer moves to its top with relative moves (cursor up N, erase N lines). One line the
// terminal wraps, or one frame whose height Ink misjudges, and every later frame lands a row
// off: closing the recover report left its last header row doubled (issue 10 review). Here
// each frame starts from the top-left corner and clears what is below it, so an error never
// outlives its frame, and only the changed lines are still what is written.

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

/** A view of the terminal whose writes are anchored; everything else is the terminal's own. */
export function anchoredStdout(stdout: NodeJS.WriteStream): NodeJS.WriteStream {
  let first = true;
  const write = (chunk: string | Uint8Array, ...rest: unknown[]): boolean => {
    if (typeof chunk !== 'string') return (stdout.write as (...a: unknown[]) => boolean)(chunk, ...rest);
    const out = anchorFrame(chunk, first);
    if (out !== chunk || (first && chunk.length > 0 && !chunk.startsWith(ESC))) first = false;
    return (stdout.write as (...a: unknown[]) => boolean)(out, ...rest);
  };
  return new Proxy(stdout, {
    get(target, prop) {
      if (prop === 'write') return write;
      const v = Reflect.get(target, prop, target) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}
