import { hostname } from 'node:os';
import { askHandover } from '../../socket/handover.js';
import { sanitizeLine } from '../../text/sanitize.js';
import type { StorePort } from './command-handlers.js';
import type { AppState } from '../store/types.js';

// `T` in a read-only control room (docs/reliability.md, A driver whose terminal vanished):
// ask the driver, through its control socket, to hand over. It leaves its runs running and
// exits; the next refresh of this instance finds the lock free, takes it, and adopts the runs
// with autopilot as it was. Not confirmed first: nothing is stopped or written, and a driver
// whose terminal vanished has nobody to ask.

export const takeOverKey = (k: Pick<StorePort, 'set'>, s: AppState): void => {
  const say = (text: string, tone: 'info' | 'warn' | 'ok' = 'info'): void => k.set({ message: { text: sanitizeLine(text), tone } });
  const snap = s.agents.snap;
  if (!snap) return say(`no agent supervisor: ${s.agents.why ?? 'not available'}`, 'warn');
  if (snap.role === 'driver') return say('this checkroom drives already: nothing to take over');
  const h = snap.holder;
  if (!h) return say('started with --readonly: this checkroom never drives (start it without --readonly to take over)', 'warn');
  if (h.host !== hostname())
    return say(
      `the driver runs on host ${h.host}: ask it there (checkroom unlock --handover), or if that host is down, checkroom unlock --host ${h.host}`,
      'warn',
    );
  say(`asking pid ${h.pid} to hand over its runs (they keep running)…`);
  void askHandover(s.ws.root).then(
    (a) =>
      a.ok
        ? say(
            a.released
              ? `pid ${a.pid} handed over and left; this checkroom takes the lock and adopts its runs`
              : `pid ${a.pid} accepted the handover and is still leaving; this checkroom drives once its lock is released`,
            'ok',
          )
        : say(`pid ${h.pid} did not hand over: ${a.why}`, 'warn'),
    (err: Error) => say(`the handover failed: ${err.message}`, 'warn'),
  );
};
