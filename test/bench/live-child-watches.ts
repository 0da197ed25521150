import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

// inotify watches held by this process, from /proc (Linux).
export const inotifyWatches = (): number => {
  let n = 0;
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      if (readlinkSync(`/proc/self/fd/${fd}`).includes('inotify'))
        n += (readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8').match(/^inotify/gm) ?? []).length;
    } catch {
      /* fd closed meanwhile */
    }
  }
  return n;
};

