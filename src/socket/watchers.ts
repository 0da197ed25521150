import type { Socket } from 'node:net';
import type { WorkspaceState } from '../types.js';
import type { SupervisorEvent } from '../run/supervisor/types.js';
import { cellChanges, cellChangesSince, fromSupervisor, statusesOf, type WatchEvent } from './events.js';
import { jsonLine } from './wire.js';

// The `watch` clients of one control room: every event goes to each of them, bounded per
// client. A client that does not read is not buffered for without end:
// past MAX_BUFFERED bytes waiting in its socket, events are dropped and counted, and once
// it has drained it is told how many with one `lagged` event — then the stream goes on.

export const MAX_BUFFERED = 256 * 1024;

interface Watcher {
  sock: Socket;
  dropped: number;
}

export interface Watchers {
  add(sock: Socket, hello: WatchEvent): void;
  /** A new live state: cell-changed events, computed once for all clients. */
  onState(s: WorkspaceState): void;
  onSupervisor(e: SupervisorEvent): void;
  readonly size: number;
  close(): void;
}

export function createWatchers(initial: () => WorkspaceState, now: () => number): Watchers {
  const all = new Set<Watcher>();
  // The state last streamed; only kept while someone watches.
  let last: WorkspaceState | null = null;
  const iso = (): string => new Date(now()).toISOString();

  const send = (w: Watcher, e: WatchEvent): void => {
    if (w.sock.destroyed) return;
    if (w.sock.writableLength > MAX_BUFFERED) {
      w.dropped++;
      return;
    }
    w.sock.write(jsonLine(e));
  };
  const broadcast = (events: WatchEvent[]): void => {
    for (const w of all) for (const e of events) send(w, e);
  };

  return {
    add(sock, hello) {
      const w: Watcher = { sock, dropped: 0 };
      if (!last) last = initial();
      all.add(w);
      sock.on('drain', () => {
        if (!w.dropped) return;
        const dropped = w.dropped;
        w.dropped = 0;
        sock.write(jsonLine({ type: 'lagged', at: iso(), dropped }));
      });
      sock.once('close', () => {
        all.delete(w);
        if (!all.size) last = null;
      });
      send(w, hello);
    },
    onState(s) {
      if (!all.size || !last) return;
      const at = iso();
      const events = cellChangesSince(last, s, at) ?? cellChanges(statusesOf(last), s, at);
      last = s;
      if (events.length) broadcast(events);
    },
    onSupervisor(e) {
      if (all.size) broadcast(fromSupervisor(e, iso()));
    },
    get size() {
      return all.size;
    },
    close() {
      for (const w of all) w.sock.destroy();
      all.clear();
      last = null;
    },
  };
}
