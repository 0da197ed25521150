import { afterEach, describe, expect, it } from 'vitest';
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createLiveWorkspace } from '../../../src/live/live-workspace.js';
import { createAppStore } from '../../../src/ui/store/store.js';
import { NO_COLOR_THEME } from '../../../src/text/theme.js';
import { loadConfig } from '../../../src/pipeline/config/config.js';
import { openSupervisor, type Supervisor } from '../../../src/run/supervisor/supervisor.js';
import { journalPath } from '../../../src/run/journal/journal.js';
import { renderRoom, tick, unmountAll } from '../../helpers/ink.js';
import { PHASE_1_2, summaries, tempDir, writeFiles } from '../../helpers/workspace.js';

// Issue 8 item 7: journal lines that cannot be read are said in the Health view, not
// skipped without a word; their text is escaped like every workspace text.

const sups: Supervisor[] = [];
afterEach(async () => {
  await unmountAll();
  for (const s of sups.splice(0)) await s.close({ cancel: true });
});

describe('Health view: unreadable journal lines', () => {
  it('names the first unreadable line and how many more, at 80x24, escaped', async () => {
    const root = tempDir();
    writeFiles(root, { ...PHASE_1_2, 'meta/chapter-summaries.md': summaries([]), 'checkroom.yaml': 'units: { list: [ch01] }\n' });
    mkdirSync(join(root, '.checkroom'));
    appendFileSync(journalPath(root), '{"v":1,"at":1,"type":"autopilot","on":false,"reason":"x"}\nnot json\n{"v":1,"at":2,"type":"\u001b]0;pwned\u0007"}\n');
    const config = await loadConfig(root);
    const sup = await openSupervisor({ root, config });
    sups.push(sup);
    const live = await createLiveWorkspace(root, { watch: false });
    const store = createAppStore({ live, agents: { sup, config } });
    const { frame, raw, press } = await renderRoom(store, live, NO_COLOR_THEME);
    await press('5');
    await tick(50);
    expect(frame()).toContain('journal line 2: not JSON, ignored (+1 more: checkroom recover)');
    expect(raw()).not.toContain('\u0007');
    expect(raw()).not.toContain(']0;pwned');
    expect(frame().split('\n').length).toBeLessThanOrEqual(24);
  });
});
