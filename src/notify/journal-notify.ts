// The journal's record of alarms (docs/notify.md, Journal): an alarm raised is written once as
// `notified`, before its commands run, so a restart — or a second driver after a takeover —
// never sends it again. Kept apart from journal.ts so the seam there is one line.

export interface NotifiedEvent {
  v: 1;
  at: number;
  type: 'notified';
  /** The alarm's identity (alarm-of.ts): the same fact always gives the same key. */
  key: string;
  event: string;
  /** Commands it was sent to; suppressed: commands whose storm cap held it back. */
  sent: number;
  suppressed: number;
}

export const NOTIFY_EVENT_FIELDS = {
  notified: { key: 's', event: 's', sent: 'n', suppressed: 'n' },
} as const;
