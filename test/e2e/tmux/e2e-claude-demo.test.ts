import { afterAll, describe, expect, it } from 'vitest';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { readJournal, type JournalEvent } from '../../../src/run/journal/journal.js';
import { CLAUDE_BIN, unfaked } from '../../helpers/claude.js';
import { hasTmux, TmuxSession } from '../../helpers/tmux.js';
import { REPO, tempDir } from '../../helpers/workspace.js';

// `npm start -- --claude` (issue 11 item 9) in a real terminal: the bundled demo, the real
// Claude Code CLI, the scripted model on 127.0.0.1. With autopilot on, the screen shows the
// money spent, and the journal shows an overload retried and a silent stream continued by
// resuming its session, both ending ✅ (bounded waits; no wall-clock assertion).

const DEMO = join(REPO, 'dist/bundle/start-demo.js');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.skipIf(!hasTmux())('npm start -- --claude (tmux 100×30)', () => {
  const sessions: TmuxSession[] = [];
  afterAll(() => sessions.forEach((s) => s.kill()));

  it('autopilot on the real CLI: spend on screen, 529 retried, a stall continued by resume', { timeout: 200_000 }, async () => {
    expect(existsSync(DEMO) && existsSync(CLAUDE_BIN), 'npm run build and npm install first').toBe(true);
    // The demo copies the workspace into TMPDIR: a private one says where to look.
    const tmp = tempDir('checkroom-demo-tmp-');
    const t = new TmuxSession(`sh -c 'node ${DEMO} --claude; echo EXITED-$?; sleep 600'`, { cols: 100, rows: 30, env: { TMPDIR: tmp, ...unfaked() } });
    sessions.push(t);
    await t.waitFor('checkroom recover', 60_000);
    t.keys('Escape');
    // Wait for what the Plan view says, not for the tab row: a loaded terminal may lag a frame.
    await t.waitFor(() => !t.capture().includes('checkroom recover'));
    t.keys('3');
    await t.waitFor(/next steps · \d+ queued/, 60_000);
    t.keys('a');
    await t.waitFor('the exact command');
    expect(t.capture()).toContain('stream-json');
    t.keys('y');
    await t.waitFor(/auto on · spent \$\d+\.\d{2} of \$2\.50 this session/, 60_000);
    const ws = join(tmp, readdirSync(tmp).find((d) => d.startsWith('checkroom-demo-') && !d.includes('home'))!);
    let events: JournalEvent[] = [];
    const exits = () => events.filter((e): e is Extract<JournalEvent, { type: 'exit' }> => e.type === 'exit');
    const t0 = Date.now();
    for (;;) {
      events = (await readJournal(ws)).events;
      const cont = events.find((e) => e.type === 'continue');
      const resumedDone = cont && exits().some((e) => e.unit === (cont as { unit: string }).unit && e.step === (cont as { step: string }).step && e.class === 'SUCCESS' && e.at > cont.at);
      if (resumedDone && exits().some((e) => e.class === 'OVERLOADED')) break;
      if (Date.now() - t0 > 150_000) throw new Error(`demo did not show both in time; exits: ${exits().map((e) => `${e.unit}/${e.step}:${e.class}`).join(' ')}`);
      await sleep(500);
    }
    const stalled = exits().find((e) => e.class === 'STALLED')!;
    expect(exits().some((e) => e.unit === stalled.unit && e.step === stalled.step && e.class === 'SUCCESS')).toBe(true);
    expect(events.some((e) => e.type === 'launch' && e.argv.includes('--resume'))).toBe(true);
    t.keys('a');
    await t.waitFor('auto off');
    t.keys('q');
    // Quitting may ask about runs still in flight, then offer to write RESUME.md: answer each.
    for (let i = 0; i < 4 && !t.capture().includes('EXITED-'); i++) {
      const screen = await t.waitFor(() => /EXITED-|Quit with|cancel them, then quit|just quit/.test(t.capture()), 60_000);
      if (/Quit with|cancel them, then quit/.test(screen)) t.keys('y');
      else if (screen.includes('just quit')) t.keys('n');
      await sleep(300);
    }
    await t.waitFor(/EXITED-0/, 60_000);
  });
});
