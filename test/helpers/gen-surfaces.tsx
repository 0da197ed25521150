import { appendFileSync } from 'node:fs';
import { stripVTControlCharacters } from 'node:util';
import { render } from 'ink-testing-library';
import { createLiveWorkspace } from '../../src/live/live-workspace.js';
import { createAppStore, disposeStore } from '../../src/ui/store/store.js';
import { NO_COLOR_THEME } from '../../src/text/theme.js';
import { makePaint } from '../../src/text/paint.js';
import { loadConfig } from '../../src/pipeline/config/config.js';
import { openSupervisor } from '../../src/run/supervisor/supervisor.js';
import { journalPath } from '../../src/run/journal/journal.js';
import { partialsCommand, planCommand, statusCommand } from '../../src/cli/commands/core-commands.js';
import { startControlServer } from '../../src/socket/server.js';
import { askStatus, openControl } from '../../src/socket/client.js';
import { ControlRoom } from '../../components/ControlRoom.js';
import { statusText } from './status-text.js';
import { operatorOf } from '../../src/ui/store/operator.js';
import { runsOf } from '../../src/operator/runs.js';
import { tempDir } from './workspace.js';

// Every surface of one workspace, read once at one fixed clock (issue 18 item 2): the control
// room's frames (ink-testing-library, wide, no colour), `status` / `plan` / `partials` in text
// and `--json` (the commands in process, their output captured), the socket's `status --json`
// and what `watch --json` streamed from before the journal's tail arrived. The test parses
// the facts it compares from these (test/helpers/gen-facts.ts).

export interface Surfaces {
  frames: Record<'progress' | 'partials' | 'plan' | 'health', string>;
  statusText: string;
  statusJson: string;
  planText: string;
  planJson: string;
  partialsText: string;
  partialsJson: string;
  socketStatus: string;
  watchLines: string[];
}

const tick = (ms = 30) => new Promise((r) => setTimeout(r, ms));

const capture = async (f: (out: { write(s: string): void }) => Promise<void>): Promise<string> => {
  let s = '';
  await f({ write: (x) => (s += x) });
  return s;
};

/** A `watch --json` client: every line the instance sends, kept until `stop`. */
async function watchStream(root: string, env: NodeJS.ProcessEnv): Promise<{ lines(): string[]; stop(): void }> {
  const opened = await openControl(root, 'watch', { env });
  if (!opened.ok) throw new Error(`watch: ${opened.why}`);
  const { sock, rest } = opened;
  let text = rest.toString('utf8');
  sock.on('data', (c: Buffer) => (text += c.toString('utf8')));
  sock.resume();
  return { lines: () => text.split('\n').filter(Boolean), stop: () => sock.destroy() };
}

/**
 * Read every surface of `root` at `now` (epoch ms), as a read-only instance sees it. `delta`:
 * journal lines appended once the instance is open (as a driver writes them while an observer
 * watches), read by its next refresh; every surface is read after it.
 */
export async function readSurfaces(root: string, now: number, delta = '', size = { columns: 180, rows: 48 }): Promise<Surfaces> {
  const o = { paint: makePaint(false), ascii: false, width: size.columns };
  const config = await loadConfig(root);
  const sup = await openSupervisor({ root, config, readonly: true, now: () => now });
  const live = await createLiveWorkspace(root, { watch: false });
  const store = createAppStore({ live, readonly: true, now: () => new Date(now), agents: { sup, config, flushMs: 0, now: () => now } });
  const env = { ...process.env, XDG_RUNTIME_DIR: tempDir('checkroom-xdg-') };
  const server = await startControlServer(root, { live, sup, pointer: false, env, now: () => now }, statusText(() => sup.snapshot().ledger.costs, () => runsOf(store.getState().agents.snap), () => operatorOf(store.getState()).foresight));
  const watch = await watchStream(root, env);
  const r = render(<ControlRoom store={store} theme={NO_COLOR_THEME} />);
  try {
    Object.defineProperty(r.stdout, 'rows', { value: size.rows, configurable: true });
    Object.defineProperty(r.stdout, 'columns', { value: size.columns, configurable: true });
    r.stdout.emit('resize');
    const frame = () => stripVTControlCharacters(r.lastFrame() ?? '');
    // No sleep per view: each frame is taken once the tab bar marks its view and the agents'
    // first snapshot is in (the autopilot badge or the read-only note), bounded by `until`.
    const until = async (ok: (f: string) => boolean, what: string): Promise<string> => {
      const t0 = Date.now();
      for (;;) {
        const f = frame();
        if (ok(f)) return f;
        if (Date.now() - t0 > 10_000) throw new Error(`the control room never showed ${what}:\n${f}`);
        await tick(8);
      }
    };
    await until((f) => /\bauto (on|off|PAUSED)\b/.test(f), 'its first frame');
    if (delta) {
      appendFileSync(journalPath(root), delta);
      await sup.refresh();
      // The room reads the supervisor's snapshot through its agents feed, which is told of a
      // refresh by the supervisor's events or re-reads the journal on its own tick: the room is
      // read once it holds the journal the scans will read (issue 18 items 1-2: the scan reads
      // the journal's runs in flight, and a room a tick behind still showed the ones before).
      await until(() => store.getState().agents.snap?.ledger === sup.snapshot().ledger, 'the journal appended');
    }
    // The agents' first flush hands the live workspace its running set (agents-feed.ts): the
    // room is read once that is applied and drawn, not in the frame before.
    await tick(20);
    await store.getState().idle();
    await live.settled();
    const view = async (key: string, title: string) => {
      r.stdin.write(key);
      let last = '';
      return until((f) => {
        const ok = f.includes(`[${key} ${title}`) && f === last;
        last = f;
        return ok;
      }, title);
    };
    // One round reads every view and the socket. An observer's room can still move after it
    // settled (its agents feed re-reads the driver's journal on its own tick, a recorded run's
    // pid is checked once): under load a run was in the Plan frame and gone by Health's. The
    // surfaces are compared as of one state, so rounds repeat until two in a row are the same.
    const round = async () => ({
      frames: { progress: await view('1', 'Progress'), partials: await view('2', 'Partials'), plan: await view('3', 'Plan'), health: await view('5', 'Health') },
      socketStatus: Buffer.concat((await askStatus(root, { env })) ?? []).toString('utf8'),
    });
    let { frames, socketStatus } = await round();
    for (let i = 0; i < 6; i++) {
      await store.getState().idle();
      await live.settled();
      const again = await round();
      if (JSON.stringify(again.frames) === JSON.stringify(frames) && again.socketStatus === socketStatus) break;
      ({ frames, socketStatus } = again);
    }
    const cli = {
      statusText: await capture((out) => statusCommand([root], false, o, out)),
      statusJson: await capture((out) => statusCommand([root], true, o, out)),
      planText: await capture((out) => planCommand([root], false, o, out)),
      planJson: await capture((out) => planCommand([root], true, o, out)),
      partialsText: await capture((out) => partialsCommand([root], false, o, out)),
      partialsJson: await capture((out) => partialsCommand([root], true, o, out)),
    };
    return { ...cli, frames, socketStatus, watchLines: watch.lines() };
  } finally {
    watch.stop();
    r.unmount();
    await server?.close();
    disposeStore(store);
    await live.close();
    await sup.close();
  }
}
