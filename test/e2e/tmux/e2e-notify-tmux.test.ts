import { afterAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, hasTmux, TmuxSession } from '../../helpers/tmux.js';
import { tempDir, writeFakeAgentWs } from '../../helpers/workspace.js';
import { loadConfig } from '../../../src/pipeline/config/config.js';
import { appendJournal } from '../../../src/run/journal/journal.js';
import { commandShownEvent } from '../../../src/consent.js';

// Terminal alarms in a real terminal (docs/notify.md, Terminal alarms): the built control
// room in tmux, autopilot on, the fake agent denied permission so both cells escalate. What
// the program sent the pane is read through pipe-pane (bytes, not the screen): the bell, the
// OSC 9 notification wrapped for tmux's passthrough with every ESC doubled, and the title,
// which tmux takes as the pane's title.

const sessions: TmuxSession[] = [];
afterAll(() => sessions.forEach((s) => s.kill()));

const makeWs = async (): Promise<string> => {
  const root = writeFakeAgentWs(tempDir('checkroom-notify-tmux-'), {
    units: ['ch01', 'ch02'],
    faults: { '*/research': 'permission' },
    speed: 40,
    grace: null,
    concurrency: 1,
    roles: [],
    tail: ['notify:', '  terminal: { bell: true, osc: 9, title: true }'],
  });
  // The exact command counts as shown: autopilot starts without the consent dialog.
  await appendJournal(root, commandShownEvent(await loadConfig(root), 'ch01', 'research', Date.now()));
  return root;
};

describe.skipIf(!hasTmux())('terminal alarms in tmux', () => {
  it('rings, notifies through tmux passthrough and sets the pane title when cells escalate', async () => {
    const root = await makeWs();
    const bytes = join(root, 'pane.bytes');
    // The room starts once passthrough is allowed and the pane's bytes are piped.
    const go = join(root, 'go');
    const t = new TmuxSession(`sh -c 'while [ ! -e ${go} ]; do sleep 0.1; done; node ${CLI} ${root}; echo EXITED-$?; sleep 600'`);
    sessions.push(t);
    t.tmux('set', '-g', 'allow-passthrough', 'on');
    t.pipeTo(bytes);
    writeFileSync(go, '');
    await t.waitFor(/auto off · live: /);
    t.keys('3', 'a');
    await t.waitFor(/2 need you · A ack/, 60_000);
    const title = () => t.tmux('display-message', '-p', '-t', 'cr', '#{pane_title}').trim();
    await t.waitFor(() => title() === '2 need you - checkroom ' + root.split('/').pop());
    const sent = readFileSync(bytes, 'latin1');
    expect(sent).toContain('\x07');
    // The first alarm names what escalated: ch01 alone, or both when ch02's escalation lands
    // in the same storm window (a loaded machine runs the two attempts back to back).
    const name = root.split('/').pop()!.replace(/[-]/g, '\\-');
    expect(sent).toMatch(new RegExp(`\x1bPtmux;\x1b\x1b\\]9;checkroom ${name}: (1 needs you: ch01/research|2 need you: ch01/research, ch02/research) escalated\x07\x1b\\\\`));
    expect(sent).toContain('\x1b]2;2 need you - checkroom ');
    // Acknowledged: the title says so at once, and no bell rings for a count going down.
    t.keys('A');
    await t.waitFor(() => title() === 'checkroom ' + root.split('/').pop());
    // The banner (the header's third line) goes at the next frame; the Plan still says which cells need you.
    await t.waitFor(() => !(t.capture().split('\n')[2] ?? '').includes('need you'));
    expect(existsSync(bytes)).toBe(true);
  });
});
