import { afterEach, describe, expect, it } from 'vitest';
import { fakeAgentWorkspace } from '../../helpers/workspace.js';
import { loadConfig } from '../../../src/pipeline/config/config.js';
import { readJournal, type JournalEvent } from '../../../src/run/journal/journal.js';
import { openSupervisor, type Supervisor, type SupervisorEvent } from '../../../src/run/supervisor/supervisor.js';

// Issue 17 item 5: a class's cap is its attempts in all, as the source table counts them
// (the recovery skill's 試行回数のしきい値: VERIFICATION_FAILED 3, UNKNOWN 2, BROKEN_BUILD 1,
// CIRCULAR_FIX 0). Counted on the real fake agent's launches in the journal: checkroom ran
// UNKNOWN 3 times, BROKEN_BUILD twice and said VERIFICATION_FAILED "of 4".

const open: Supervisor[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close({ cancel: true });
});

async function runFault(fault: string, extraLimits: string[] = []): Promise<{ ev: JournalEvent[]; events: SupervisorEvent[]; outcome: string }> {
  const root = fakeAgentWorkspace('checkroom-caps-', { faults: { 'ch01/research': fault } });
  if (extraLimits.length) {
    const { appendFileSync } = await import('node:fs');
    appendFileSync(`${root}/checkroom.yaml`, extraLimits.map((l) => `${l}\n`).join(''));
  }
  const events: SupervisorEvent[] = [];
  const s = await openSupervisor({ root, config: await loadConfig(root), rand: () => 0.5, onEvent: (e) => events.push(e) });
  open.push(s);
  const r = await s.launch('ch01', 'research');
  return { ev: (await readJournal(root)).events, events, outcome: r.outcome };
}

const launches = (ev: JournalEvent[]) => ev.filter((e) => e.type === 'launch').length;
const escalated = (ev: JournalEvent[]) => ev.filter((e): e is Extract<JournalEvent, { type: 'escalate' }> => e.type === 'escalate').map((e) => e.class);
const said = (events: SupervisorEvent[]) => events.filter((e) => e.type === 'retry' || e.type === 'failed').map((e) => e.message);

describe('caps count attempts in all, as the source table does', () => {
  it('UNKNOWN: exactly 2 attempts (retry once), "attempt 1 of 2", then escalate', async () => {
    const { ev, events, outcome } = await runFault('same_error');
    expect(outcome).toBe('escalated');
    expect(launches(ev)).toBe(2);
    expect(escalated(ev)).toEqual(['UNKNOWN']);
    expect(said(events)[0]).toContain('attempt 1 of 2 failed (UNKNOWN)');
    expect(said(events)[1]).toContain('attempt 2 of 2 failed (UNKNOWN)');
  });

  it('BROKEN_BUILD: exactly 1 attempt, then escalate', async () => {
    const { ev, events, outcome } = await runFault('broken_build');
    expect(outcome).toBe('escalated');
    expect(launches(ev)).toBe(1);
    expect(escalated(ev)).toEqual(['BROKEN_BUILD']);
    expect(said(events)).toHaveLength(1);
    expect(said(events)[0]).toContain('attempt 1 of 1 failed (BROKEN_BUILD)');
  });

  it('VERIFICATION_FAILED: exactly 3 attempts, shown "of 3"', async () => {
    const { ev, events, outcome } = await runFault('no_marker');
    expect(outcome).toBe('escalated');
    expect(launches(ev)).toBe(3);
    // The third identical failure is also the table's loop ("same error 3+ times"): either
    // way the cell stops at the third attempt.
    expect(escalated(ev)).toHaveLength(1);
    const words = said(events);
    expect(words[0]).toContain('attempt 1 of 3 failed (VERIFICATION_FAILED)');
    expect(words[1]).toContain('attempt 2 of 3 failed (VERIFICATION_FAILED)');
    // …and the third says the class it escalated as, the journal's (issue 18 item 2: it said
    // VERIFICATION_FAILED while the journal, Plan and Health said CIRCULAR_FIX).
    expect(words[2]).toContain(`attempt 3 of 3 failed (${escalated(ev)[0]})`);
    expect(words.join('\n')).not.toContain('of 4');
  });

  it('CIRCULAR_FIX: no retry once the loop is seen (UNKNOWN raised so the loop can show)', async () => {
    const { ev, outcome } = await runFault('same_error', ['  caps: { UNKNOWN: 9 }']);
    expect(outcome).toBe('escalated');
    // The third identical failure is the loop; nothing is launched after it.
    expect(launches(ev)).toBe(3);
    expect(escalated(ev)).toEqual(['CIRCULAR_FIX']);
  });
});
