import { afterEach, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { NO_COLOR_THEME } from '../../../src/text/theme.js';
import { commandById } from '../../../src/ui/keys/keymap.js';
import { readJournal } from '../../../src/run/journal/journal.js';
import { closeAgentsRooms, mountAgentsRoom } from '../../helpers/agents-room.js';
import { claudeWorkspace, finished, writeReply, type ClaudeWs } from '../../helpers/claude.js';

// The control room on the real Claude Code CLI (issue 11): the run shows what the agent is
// doing now, the operator cancels a silent stream, C previews continuing its session, and
// the resumed attempt ends ✅; the header and the Health view show what it cost. 80×24,
// NO_COLOR.

const servers: ClaudeWs[] = [];
afterEach(async () => {
  await closeAgentsRooms();
  for (const ws of servers.splice(0)) await ws.server.close();
});

async function mount(ws: ClaudeWs) {
  servers.push(ws);
  return mountAgentsRoom(ws.root, { theme: NO_COLOR_THEME, timeout: 30_000 });
}

describe('control room on the real Claude Code CLI', () => {
  it('doing now, cancel a silent stream, C previews and continues its session to ✅, cost in header and Health', async () => {
    const ws = await claudeWorkspace((root) => [
      { kind: 'tool', name: 'Read', text: 'Reading the outline first.', input: { file_path: join(root, 'outline-final.md') } },
      { kind: 'stall', during: 'text', text: 'Now I will write the research notes, section by section, at length.' },
      writeReply(root, 'ch01', 'research'),
      finished,
      // The operator ends the stall here, not the watchdog: a loaded machine (CI's second
      // pass) must not turn a slow CLI start into a STALLED attempt.
    ], { idle: '90s' });
    const m = await mount(ws);
    // The first launch shows the exact command once; the journal records that it was shown.
    await m.press('3');
    await m.waitFor(/› P3 ch01 research\s+run/);
    await m.press('\r');
    await m.waitFor('the exact command');
    await m.press('y');
    await m.waitFor(/now: Read outline-final\.md/);
    expect(m.frame()).not.toMatch(/\{"type"/);
    // The stream is silent now: the operator cancels it.
    await m.press('x');
    await m.waitFor('Confirm: Cancel ch01 research');
    await m.press('y');
    // The attempt ends after its process: its log read, its facts and exit journalled. Only then
    // is the cell free to launch again (a continue before that is refused: still in flight).
    await m.waitFor('ch01 research: cancelled by the operator');
    await m.waitFor(() => m.sup.snapshot().runs.length === 0 && m.sup.continuable('ch01', 'research') !== null);
    await m.waitFor(/› P3 ch01 research/);
    await m.press('C');
    await m.waitFor('Confirm: Continue ch01 research: resume its session');
    const sid = m.sup.continuable('ch01', 'research')?.sessionId ?? '';
    expect(sid).not.toBe('');
    expect(m.frame().replace(/\s+/g, '')).toContain(`--resume${sid}`);
    await m.press('y');
    await m.waitFor(() => m.store.getState().ws.cells.find((c) => c.unit === 'ch01' && c.step === 'research')?.status === 'done', 90_000);
    expect(readFileSync(join(ws.root, 'research/ch01-research.md'), 'utf8')).toContain('<!-- RESEARCH_COMPLETE -->');
    const events = (await readJournal(ws.root)).events;
    expect(events.filter((e) => e.type === 'continue')).toMatchObject([{ by: 'operator', sessionId: sid }]);
    expect(events.filter((e) => e.type === 'exit').map((e) => (e as { class: string }).class)).toEqual(['CANCELLED', 'SUCCESS']);
    // Money: the header and the Health view say what was spent.
    await m.waitFor(/spent \$0\.\d{2} this session · \$0\.\d{2} in all · [\d.]+k tok/);
    await m.press('5');
    await m.waitFor(/agent researcher .*· \$0\.\d{2} · [\d.]+k tok/);
    // The cell detail (Progress, enter on ch01 research) says what the cell cost and its session.
    await m.press('1', '\r');
    // Both attempts reported (the cancelled one its session, no cost); 80 columns have no room
    // for the whole id, and a row is cut at a word (issue 18 item 5), so the id may give way
    // whole (C's preview names it in full).
    await m.waitFor(new RegExp(`agent\\s+spent \\$0\\.\\d{2} · tokens 2400 in / 600 out over 2 attempts · session(?: ${sid.slice(0, 3)}|…)`));
    expect(commandById('run.continue')).toMatchObject({ dangerous: true, runs: true, views: ['partials', 'plan'] });
  }, 240_000);
});
