import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../../src/pipeline/config/config.js';
import { notifyOf } from '../../../src/pipeline/schema-notify.js';
import { alarmOf, breakerAlarm, progressAlarms } from '../../../src/notify/alarm-of.js';
import { admit, calm, flush, summaryAt } from '../../../src/notify/storm.js';
import { payloadOf } from '../../../src/notify/payload.js';
import { alarmBytes, notificationOf, oscText, titleOf, tmuxWrap } from '../../../src/notify/terminal.js';
import { startTerminalAlarms } from '../../../src/notify/terminal-out.js';
import { needsYouOf, needsYouWords, type NeedsYou } from '../../../src/notify/needs-you.js';
import { ALARM_EVENTS, DEFAULT_NOTIFY } from '../../../src/notify/types.js';
import { NOTIFY_EVENT_FIELDS } from '../../../src/notify/journal-notify.js';
import { validateEvent, type NewJournalEvent } from '../../../src/run/journal/journal.js';
import { replayJournal } from '../../../src/run/journal/ledger-fold.js';
import { DEFAULT_BREAKER, DEFAULT_LIMITS } from '../../../src/pipeline/config/config.js';

// The pure parts of the alarms (docs/notify.md): the `notify:` block, which events raise an
// alarm and under which key, the storm cap, the payload, the terminal's bytes and the
// needs-you model. No process here: test/core/notify/notify-alarms.test.ts runs the real commands.

const BASE = 'preset: book\nunits: { list: [ch01] }\n';
const cfgOf = (notify: string) => parseConfig(`${BASE}notify:\n${notify}\n`, 'checkroom.yaml');
const errorOf = (notify: string): string => {
  try {
    cfgOf(notify);
  } catch (e) {
    if (e instanceof ConfigError) return e.message;
    throw e;
  }
  throw new Error('no error');
};

describe('notify: in checkroom.yaml', () => {
  it('takes a bare list of rows, or a mapping with the timeout, storm cap and terminal alarms', () => {
    expect(cfgOf('  - { on: [escalation], command: [notify-send, checkroom] }').notify).toEqual({ ...DEFAULT_NOTIFY, rules: [{ on: ['escalation'], command: ['notify-send', 'checkroom'] }] });
    const n = cfgOf('  commands: [{ on: [batch_complete, phase_complete], command: [x] }]\n  timeout: 3s\n  storm: { max: 2, window: 1m }\n  breaker_open_after: 5m\n  terminal: { bell: true, osc: 777, title: true }').notify!;
    expect(n).toMatchObject({ timeoutMs: 3000, storm: { max: 2, windowMs: 60_000 }, breakerOpenMs: 300_000, terminal: { bell: true, osc: 777, title: true } });
    expect(parseConfig(BASE, 'checkroom.yaml').notify).toBeUndefined();
    expect(notifyOf(undefined)).toBeUndefined();
  });

  it('refuses a shell string, an unknown event and a bad OSC with what to write instead', () => {
    expect(errorOf('  - { on: [escalation], command: "notify-send hi" }')).toMatch(/an argument array.*never a shell string/);
    expect(errorOf('  - { on: [escalated], command: [x] }')).toMatch(/escalation/);
    expect(errorOf('  terminal: { osc: 8 }')).toMatch(/one of: 9, 99, 777/);
    expect(errorOf('  - { on: [], command: [x] }')).toMatch(/at least one event/);
  });
});

const cfg = { breaker: DEFAULT_BREAKER, limits: DEFAULT_LIMITS };
const ev = (e: Record<string, unknown>): NewJournalEvent => ({ v: 1, at: 1000, ...e }) as unknown as NewJournalEvent;
const escalated = (at: number) => [
  ev({ type: 'launch', at: at - 10, runId: `r${at}`, unit: 'ch01', step: 'draft', agent: 'writer', attempt: 1, argv: ['x'], cwd: '/', logPath: '/l', pid: null, procStart: null, outputPath: null }),
  ev({ type: 'exit', at, runId: `r${at}`, unit: 'ch01', step: 'draft', agent: 'writer', exitCode: 1, signal: null, class: 'PERMISSION', markerFound: false, cmdFp: 'c', errFp: 'e', keywords: [], errorTail: [], durationMs: 10 }),
  ev({ type: 'escalate', at, unit: 'ch01', step: 'draft', class: 'PERMISSION', reason: 'EACCES' }),
];
const ledgerOf = (events: NewJournalEvent[]) => replayJournal(events as never, 10_000, cfg);

describe('which events raise an alarm, under which key', () => {
  const failed = { type: 'failed', unit: 'ch01', step: 'draft', class: 'PERMISSION', escalated: true, reason: 'EACCES', logPath: null, message: '' } as const;

  it('an escalation: keyed by the escalated attempt, so the same fact gives the same key', () => {
    const l = ledgerOf(escalated(2000));
    const a = alarmOf(failed, l, DEFAULT_LIMITS, 9999)!;
    expect(a).toMatchObject({ event: 'escalation', key: 'escalation:ch01/draft@2000', unit: 'ch01', step: 'draft', class: 'PERMISSION', agent: 'writer', reason: 'EACCES' });
    expect(alarmOf(failed, l, DEFAULT_LIMITS, 12345)!.key).toBe(a.key);
    expect(alarmOf({ ...failed, escalated: false }, l, DEFAULT_LIMITS, 1)).toBeNull();
    expect(alarmOf({ type: 'done', unit: 'ch01', step: 'draft', runId: 'r', attempt: 1, message: '' }, l, DEFAULT_LIMITS, 1)).toBeNull();
  });

  it('a pause: budget_spent when a budget stops it, autopilot_paused otherwise', () => {
    const paused = { type: 'autopilot', on: false, paused: true, reason: 'x', message: '' } as const;
    const l = ledgerOf([ev({ type: 'autopilot', at: 3000, on: false, reason: 'paused: 5 consecutive failures' })]);
    expect(alarmOf(paused, l, DEFAULT_LIMITS, 1)).toMatchObject({ event: 'autopilot_paused', key: 'autopilot_paused:3000' });
    expect(alarmOf(paused, l, { ...DEFAULT_LIMITS, maxLaunches: 0 }, 1)).toMatchObject({ event: 'budget_spent' });
  });

  it('a breaker open for long, and a batch or phase the finished cell completed', () => {
    expect(breakerAlarm('writer', 1000, 1000 + 59_999, 60_000)).toBeNull();
    expect(breakerAlarm('writer', 1000, 61_000, 60_000)).toMatchObject({ event: 'breaker_open_long', key: 'breaker_open_long:writer@1000', agent: 'writer' });
    const batches = [{ id: 1, units: ['ch01'], done: 4, total: 4, status: 'done' as const }, { id: 2, units: ['ch02'], done: 0, total: 4, status: 'not_started' as const }];
    const phases = [{ id: 3, name: 'Chapter writing', status: 'done' as const, done: 8, total: 8, missing: [] }, { id: 1, name: 'Outline', status: 'done' as const, done: 1, total: 1, missing: [] }];
    expect(progressAlarms('ch01', 3, batches, phases, 5).map((a) => a.key)).toEqual(['batch_complete:1', 'phase_complete:3']);
    expect(progressAlarms('ch02', 3, batches, [{ ...phases[0]!, status: 'in_progress' }], 5)).toEqual([]);
  });
});

describe('the storm cap', () => {
  const cap = { max: 2, windowMs: 100 };
  it('lets max through per window, holds the rest, and owes one summary when a slot frees', () => {
    let s = calm();
    const sends: boolean[] = [];
    for (const t of [0, 10, 20, 30]) {
      const v = admit(s, t, cap);
      s = v.state;
      sends.push(v.send);
    }
    expect(sends).toEqual([true, true, false, false]);
    expect(s.held).toBe(2);
    expect(summaryAt(s, cap)).toBe(100);
    expect(flush(s, 99, cap).held).toBe(0); // no room yet
    const f = flush(s, 100, cap);
    expect(f.held).toBe(2);
    expect(f.state.held).toBe(0);
    // While a summary is owed, an alarm never overtakes it.
    expect(admit({ sent: [], held: 1 }, 500, cap).send).toBe(false);
  });
});

describe('the payload', () => {
  it('is one line of JSON with every string escaped: no control, separator or format character raw', () => {
    const a = { event: 'escalation' as const, key: 'k', at: Date.UTC(2026, 0, 2), unit: 'ch01', step: 'draft', class: 'PERMISSION', reason: 'evil\u001b]2;pwned\u0007 \u009b31m \u202e \u2028', agent: 'writer', batch: null, phase: null };
    const text = payloadOf(a, { workspace: { name: 'book', root: '/w' }, counts: { needsYou: 1, running: 0, launchesThisSession: 3, done: null, total: null, suppressed: 0 } });
    expect(text.endsWith('\n')).toBe(true);
    expect(text.trimEnd()).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202e]/);
    const doc = JSON.parse(text) as Record<string, unknown>;
    expect(doc).toMatchObject({ v: 1, event: 'escalation', workspace: 'book', cell: 'ch01/draft', class: 'PERMISSION', at: '2026-01-02T00:00:00.000Z', counts: { needsYou: 1 } });
    expect(doc.reason).toBe(a.reason); // the same text, only escaped
  });
});

describe('the journal knows notified and ack_alarms', () => {
  it('validates a notified line and an acknowledgement', () => {
    expect(Object.keys(NOTIFY_EVENT_FIELDS)).toEqual(['notified']);
    expect(validateEvent({ v: 1, at: 1, type: 'notified', key: 'k', event: 'escalation', sent: 1, suppressed: 0 })).toBeNull();
    expect(validateEvent({ v: 1, at: 1, type: 'notified', key: 'k' })).toMatch(/bad field/);
    expect(validateEvent({ v: 1, at: 1, type: 'decision', kind: 'ack_alarms' })).toBeNull();
    expect(ALARM_EVENTS).toContain('breaker_open_long');
  });
});

describe('needs you: escalations not acknowledged', () => {
  it('counts escalated cells after the last acknowledgement; a later escalation counts again', () => {
    expect(needsYouOf(null).count).toBe(0);
    const l1 = ledgerOf(escalated(2000));
    expect(needsYouOf(l1)).toMatchObject({ count: 1, cells: ['ch01/draft'] });
    const acked = [...escalated(2000), ev({ type: 'decision', at: 2500, kind: 'ack_alarms' })];
    expect(needsYouOf(ledgerOf(acked)).count).toBe(0);
    const again = [...acked, ev({ type: 'decision', at: 2600, kind: 'reset_cell', unit: 'ch01', step: 'draft' }), ...escalated(3000)];
    expect(needsYouOf(ledgerOf(again))).toMatchObject({ count: 1, ackAt: 2500 });
    expect(needsYouWords(1)).toBe('1 needs you');
    expect(needsYouWords(2)).toBe('2 need you');
  });
});

describe('terminal alarms, as bytes', () => {
  const all = { bell: true, osc: 9 as const, title: true };
  it('strips every control character from the text, and `;` from OSC fields', () => {
    expect(oscText('a\u001b]0;x\u0007b\u009bc\u202ed;e\n')).toBe('a ]0,x b c d,e');
    expect(titleOf('2 need you\u001b')).toBe('\u001b]2;2 need you\u0007');
  });

  it('writes OSC 9, 777 and 99 in their own shapes, and wraps them for tmux with ESC doubled', () => {
    expect(notificationOf(9, 'checkroom', 'ch01 escalated')).toBe('\u001b]9;checkroom: ch01 escalated\u0007');
    expect(notificationOf(777, 'checkroom', 'x')).toBe('\u001b]777;notify;checkroom;x\u0007');
    expect(notificationOf(99, 'checkroom', 'x')).toBe('\u001b]99;i=checkroom:d=0;checkroom\u001b\\\u001b]99;i=checkroom:d=1:p=body;x\u001b\\');
    expect(tmuxWrap('\u001b]9;x\u0007')).toBe('\u001bPtmux;\u001b\u001b]9;x\u0007\u001b\\');
  });

  it('rings only when the count grows; the title follows every change; no OSC through tmux without passthrough', () => {
    const change = (before: number, after: number) => ({ before, after, title: `${after} need you`, heading: 'checkroom', news: 'ch01 escalated' });
    const out = alarmBytes(all, change(0, 1), { tmux: false, passthrough: false });
    expect(out).toBe('\u001b]2;1 need you\u0007\u0007\u001b]9;checkroom: ch01 escalated\u0007');
    expect(alarmBytes(all, change(2, 1), { tmux: false, passthrough: false })).toBe('\u001b]2;1 need you\u0007');
    expect(alarmBytes(all, change(0, 1), { tmux: true, passthrough: false })).toBe('\u001b]2;1 need you\u0007\u0007');
    expect(alarmBytes(all, change(0, 1), { tmux: true, passthrough: true })).toContain('\u001bPtmux;\u001b\u001b]9;');
    expect(alarmBytes(DEFAULT_NOTIFY.terminal, change(0, 1), { tmux: false, passthrough: false })).toBe('');
  });

  it('writes nothing at all when stdout is not a terminal', async () => {
    let n: NeedsYou = { count: 0, cells: [], ackAt: null };
    const fns: (() => void)[] = [];
    const host = { subscribe: (fn: () => void) => (fns.push(fn), () => undefined), needsYou: () => n, name: 'book' };
    const written: string[] = [];
    const write = (s: string | Uint8Array) => (written.push(String(s)), true);
    startTerminalAlarms(host, all, { write, isTTY: false }, {});
    const stop = startTerminalAlarms(host, all, { write, isTTY: true }, {});
    await new Promise((r) => setTimeout(r, 0));
    n = { count: 1, cells: ['ch01/draft'], ackAt: null };
    for (const fn of fns) fn();
    expect(fns).toHaveLength(1); // the pipe never even subscribed
    expect(written).toEqual(['\u001b]2;1 needs you - checkroom book\u0007\u0007\u001b]9;checkroom book: 1 needs you: ch01/draft escalated\u0007']);
    // At the end the count leaves the tab: the title is emptied.
    stop();
    expect(written.at(-1)).toBe('\u001b]2;\u0007');
  });
});
