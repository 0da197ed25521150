import { createLiveWorkspace } from '../../src/live/live-workspace.js';
import { startControlServer } from '../../src/socket/server.js';
import { statusText } from '../helpers/status-text.js';

// A control room's live state and control socket, without the terminal (issue 10 item 4):
// what `status --json` asks while a control room runs. `--no-settle`: answer without waiting
// for pending events (live.settled()) — the floor, to show what the settle costs. Prints
// "ready" once serving; ends when its stdin closes.

const [dir, mode] = process.argv.slice(2);
const live = await createLiveWorkspace(dir, { watch: true });
const view =
  mode === '--no-settle'
    ? {
        get state() {
          return live.state;
        },
        subscribe: live.subscribe,
        settled: () => Promise.resolve(),
      }
    : live;
const server = await startControlServer(dir, { live: view, pointer: false }, statusText());
if (!server) throw new Error('another control room serves this workspace');
process.stdout.write('ready\n');
process.stdin.resume();
process.stdin.once('end', () => {
  void server
    .close()
    .then(() => live.close())
    .then(() => process.exit(0));
});
