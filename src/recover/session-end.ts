import type { JournalEvent } from '../run/journal/journal.js';

// How the last control-room session ended, from the journal ("the recover
// report opens after a clean quit"). Half-products, ⏳ claims and a stale RESUME.md are the
// normal look of a pipeline mid-flight, so they cannot tell an interruption from a quit: a
// driver journals `session start` when it opens and `session stop` when it closes, and only
// a start with no stop after it says the last session was cut off.

/** `none`: no checkroom session was ever journaled here (another tool drove the pipeline). */
export type LastSession = 'clean' | 'interrupted' | 'none';

/**
 * The end of the session before this one. `selfPid` is this process: its own `start` (the
 * supervisor journals it before the control room asks) is not the session being judged.
 */
export function lastSessionEnd(events: readonly JournalEvent[], selfPid?: number): LastSession {
  const sessions = events.filter((e) => e.type === 'session');
  let i = sessions.length - 1;
  if (i >= 0 && sessions[i].kind === 'start' && sessions[i].pid === selfPid) i--;
  if (i < 0) return 'none';
  const last = sessions[i];
  if (last.kind !== 'stop') return 'interrupted';
  // A stop journaled on the way out of a signal, a closed terminal or a crash ends the session
  // in order, but the operator did not quit: that is an interruption too. Older journals
  // carry no reason on their stops; those were quits.
  const reason = (last as { reason?: unknown }).reason;
  return reason === undefined || reason === 'quit' ? 'clean' : 'interrupted';
}
