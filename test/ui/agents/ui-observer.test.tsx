import { afterEach, describe, expect, it } from 'vitest';
import { closeAgentsRooms, mountAgentsRoom } from '../../helpers/agents-room.js';
import { tempDir, writeFakeAgentWs } from '../../helpers/workspace.js';

// Issue 8 item 5 in the control room: an observer (a second, read-only instance) shows the
// driver's run as the driver does — in flight in the Plan, counted running in the header,
// its cell running (not a half-product) — and the store's live writers name it (issue 8
// item 1: the one place triage asks). Real supervisors, the demo's fake agent, real files.

// Slow enough to be watched mid-write (sections every 1-3 s).
const makeWs = (): string => writeFakeAgentWs(tempDir('checkroom-ui-observer-'), { batched: false, speed: 0.1, roles: [], tail: [] });

afterEach(closeAgentsRooms);

const mount = (root: string) => mountAgentsRoom(root, { live: { watch: false, poll: true, pollMs: 200 } });

describe('an observer in the control room', () => {
  it("shows the driver's run running, with its log, and names it a live writer", async () => {
    const root = makeWs();
    const driver = await mount(root);
    const run = driver.sup.launch('ch01', 'research');
    const o = await mount(root);
    expect(o.sup.snapshot().role).toBe('readonly');
    await o.waitFor(() => o.store.getState().agents.writers.includes('ch01/research'));
    await o.press('3');
    await o.waitFor(/ch01 research\s+running/);
    await o.waitFor(/running \(driver's\) pid \d+/);
    await o.waitFor(/· 1 running/);
    expect(o.live.state.cells.find((c) => c.unit === 'ch01' && c.step === 'research')?.status).toBe('running');
    await run;
    // The driver's run ended: the observer's writers follow the journal.
    await o.waitFor(() => o.store.getState().agents.writers.length === 0);
  }, 60_000);
});
