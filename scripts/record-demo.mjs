// `npm run docs` (after the build): records the real control room on the demo workspace and
// renders the recording for the README (issue 19 item 6: a newcomer sees the room move before
// installing it). The built program runs in tmux at a fixed size on its own server socket; a
// short tour is typed with send-keys; after each key the screen is captured with its colours
// (`capture-pane -e -p`). The frames become an asciinema v2 cast (docs/demo.cast: a JSON header
// line, then one `[seconds, "o", data]` line per frame) and one animated SVG (docs/demo.svg,
// scripts/cast-to-svg.mjs). Needs tmux; the demo copies the workspace to a temp dir, so the
// repository's demo-workspace/ is never written.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { castToSvg } from './cast-to-svg.mjs';

const COLS = 100;
const ROWS = 30;
const SOCKET = `checkroom-record-${process.pid}`;
const SESSION = 'demo';

// The tour: keys, what they show, and how long the frame stays on screen in the recording.
// `watch` frames are taken every second for that many seconds after the keys, and play in
// real time: the demo's ch03 r2 reviewer hits a rate limit twice, so the launch shows the
// retries, the breaker's wait and the marker that ends it.
const TOUR = [
  { keys: [], what: 'the progress matrix', hold: 2.5 },
  { keys: ['j'], what: 'down a unit', hold: 0.7 },
  { keys: ['l'], what: 'right a step', hold: 0.7 },
  { keys: ['Enter'], what: "the cell's detail", hold: 2.5 },
  { keys: ['Escape', '2'], what: 'the partials', hold: 2.2 },
  { keys: ['j'], what: 'the next partial', hold: 1.2 },
  { keys: ['3'], what: 'the plan', hold: 2 },
  { keys: ['j'], what: 'the failed review', hold: 1 },
  { keys: ['Enter'], what: 'launch: the exact command, confirmed once', hold: 2.5 },
  { keys: ['y'], what: 'the run: retries, breaker, marker', watch: 14 },
  { keys: ['L'], what: "the run's log", hold: 2.5 },
  { keys: ['5'], what: 'agent health', hold: 2.2 },
  { keys: ['4'], what: 'the sources', hold: 2.5 },
  { keys: ['1'], what: 'the matrix, ch03 r2 now done', hold: 3 },
];

const tmux = (...args) => execFileSync('tmux', ['-L', SOCKET, ...args], { encoding: 'utf8' });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const capture = () => tmux('capture-pane', '-e', '-p', '-t', SESSION);
// eslint-disable-next-line no-control-regex -- the SGR sequences capture-pane -e writes
const plain = (s) => s.replace(/\x1b\[[0-9;:]*m/g, '');

/** Waits until the screen stops changing (two equal captures in a row), so a frame is whole. */
async function settled(previous, timeoutMs = 8000) {
  let last = capture();
  for (let waited = 0; waited < timeoutMs; waited += 250) {
    await sleep(250);
    const now = capture();
    if (now === last && now !== previous) return now;
    last = now;
  }
  return last;
}

async function record() {
  const env = { ...process.env, TERM: 'xterm-256color', LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8', TZ: 'UTC' };
  delete env.NO_COLOR;
  execFileSync('tmux', ['-L', SOCKET, '-f', '/dev/null', 'new-session', '-d', '-s', SESSION, '-x', String(COLS), '-y', String(ROWS), 'node dist/bundle/start-demo.js'], { env, stdio: 'ignore' });
  const frames = [];
  try {
    for (let waited = 0; !/Progress/.test(plain(capture())); waited += 200) {
      if (waited > 20000) throw new Error(`the demo drew no frame in 20 s; the screen:\n${plain(capture())}`);
      await sleep(200);
    }
    let screen = '';
    for (const step of TOUR) {
      for (const k of step.keys) tmux('send-keys', '-t', SESSION, k);
      if (step.watch) {
        for (let s = 0; s < step.watch; s++) {
          await sleep(1000);
          const now = capture();
          // An unchanged screen holds the frame before it longer instead of adding one.
          if (now === frames.at(-1).screen) frames.at(-1).hold += 1;
          else frames.push({ screen: now, hold: 1, what: step.what });
          screen = now;
        }
        continue;
      }
      screen = await settled(screen);
      frames.push({ screen, hold: step.hold, what: step.what });
    }
    tmux('send-keys', '-t', SESSION, 'q');
    await sleep(300);
  } finally {
    try {
      tmux('kill-server');
    } catch {
      // already gone with the demo's exit
    }
  }
  return frames;
}

/** The cast: each frame clears the screen and draws the captured rows (colours kept). */
function toCast(frames) {
  const header = { version: 2, width: COLS, height: ROWS, title: 'checkroom demo: a tour of the control room', env: { TERM: 'xterm-256color', SHELL: '/bin/sh' } };
  const lines = [JSON.stringify(header)];
  let t = 0;
  for (const f of frames) {
    const rows = f.screen.replace(/\n$/, '').split('\n').slice(0, ROWS);
    lines.push(JSON.stringify([Number(t.toFixed(3)), 'o', `\x1b[H\x1b[2J\x1b[0m${rows.join('\x1b[0m\r\n')}\x1b[0m`]));
    t += f.hold;
  }
  // A last, empty event holds the final frame for its time (players stop at the last event).
  lines.push(JSON.stringify([Number(t.toFixed(3)), 'o', '']));
  return `${lines.join('\n')}\n`;
}

try {
  execFileSync('tmux', ['-V'], { stdio: 'ignore' });
} catch {
  console.log('skipped docs/demo.cast and docs/demo.svg: the recording needs tmux (apt-get install tmux), the committed ones are kept');
  process.exit(0);
}
const frames = await record();
const cast = toCast(frames);
writeFileSync('docs/demo.cast', cast);
console.log(`wrote docs/demo.cast (${frames.length} frames)`);
const svg = castToSvg(cast);
writeFileSync('docs/demo.svg', svg);
console.log(`wrote docs/demo.svg (${Math.round(Buffer.byteLength(svg) / 1024)} KB)`);
