// The storm cap (docs/notify.md, Storms): an alarm storm is itself one alarm. Per command, at
// most `max` sends in any window; past that, alarms are counted, not sent, and once the window
// has room again one summary says how many were held back. Pure: the state in, the verdict out.

export interface StormState {
  /** Times of the sends inside the window, oldest first. */
  sent: number[];
  /** Alarms held back since the last summary. */
  held: number;
}

export const calm = (): StormState => ({ sent: [], held: 0 });

const inWindow = (s: StormState, now: number, windowMs: number): number[] => s.sent.filter((t) => now - t < windowMs);

/** May one more alarm go out now? Sends are recorded; a refusal is counted in `held`. */
export function admit(s: StormState, now: number, cap: { max: number; windowMs: number }): { state: StormState; send: boolean } {
  const sent = inWindow(s, now, cap.windowMs);
  // A summary still owed takes the first free slot, so an alarm never overtakes it.
  if (sent.length >= cap.max || s.held > 0) return { state: { sent, held: s.held + 1 }, send: false };
  return { state: { sent: [...sent, now], held: 0 }, send: true };
}

/** When the summary of held alarms may go out (a slot frees), or null when nothing is held. */
export function summaryAt(s: StormState, cap: { max: number; windowMs: number }): number | null {
  if (s.held === 0) return null;
  const i = s.sent.length - cap.max;
  return i < 0 ? 0 : s.sent[i] + cap.windowMs;
}

/** Send the summary now if a slot is free: the count it carries and the state after. */
export function flush(s: StormState, now: number, cap: { max: number; windowMs: number }): { state: StormState; held: number } {
  const sent = inWindow(s, now, cap.windowMs);
  if (s.held === 0 || sent.length >= cap.max) return { state: { sent, held: s.held }, held: 0 };
  return { state: { sent: [...sent, now], held: 0 }, held: s.held };
}
