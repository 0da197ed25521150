import { createLiveWorkspace } from '../../src/live/live-workspace.js';
import { startControlServer } from '../../src/socket/server.js';
import { statusJsonText } from '../../src/cli/core-commands.js';

// A control room's live state and control socket, without the terminal (issue 10 item 4):
// what `status --json` asks while a control room runs. `--no-settle`: answer without the
// forced re-read of the settle fallback — the floor the socket reaches once the live model
// says when its pending events are applied (live.settled(), nothing pending). Prints
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
        refresh: live.refresh,
        settled: () => Promise.resolve(),
      }
    : live;
const server = await startControlServer(dir, { live: view, pointer: false }, statusJsonText);
if (!server) throw new Error('another control room serves this workspace');
process.stdout.write('ready\n');
process.stdin.resume();
process.stdin.once('end', () => {
  void server
    .close()
    .then(() => live.close())
    .then(() => process.exit(0));
});
