import { readFileSync, readdirSync, readlinkSync, statSync } from 'node:fs';

// The /proc reader behind "is this file live": every process on this
// machine, the files each holds open, and how (fdinfo's flags). Behind an interface so the
// decision (holders.ts, liveness.ts) is tested on plain values, and the real reader on real
// processes. Linux only: elsewhere `available` is false and the quiet window is all we have.

/** An open file descriptor of a process, identified by the file it points to (device + inode: renames and hard links keep it). */
export interface OpenFd {
  fd: number;
  dev: bigint;
  ino: bigint;
}

export interface ProcInfo {
  /** /proc/PID/comm: the command name, at most 15 bytes, raw (callers sanitize). */
  command: string;
  /** Process group: a run checkroom launched leads its own group. */
  pgrp: number;
  /** When the process started, ms since the epoch on the kernel's clock, or null. */
  startMs: number | null;
}

export interface ProcSource {
  /** False where there is no /proc (not Linux): nothing can be said about holders. */
  readonly available: boolean;
  pids(): number[];
  /** The descriptors of `pid` open on regular files; `denied` when its fd table is not ours to read (another user's, not root); null when it is gone. */
  fds(pid: number): OpenFd[] | 'denied' | null;
  /** fdinfo's `flags:` (octal in the file), or null when gone. */
  flags(pid: number, fd: number): number | null;
  info(pid: number): ProcInfo | null;
  /** The kernel's wall clock in ms (what stamps a local file's mtime), even under a faked process clock. */
  nowMs(): number;
}

const TICKS_PER_SECOND = 100; // USER_HZ: 100 on every Linux architecture node runs on (proc(5), starttime)

const readText = (path: string): string | null => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
};

/** Boot time (seconds since the epoch) from /proc/stat; read once, it does not change. */
let bootSeconds: number | null | undefined;
const bootTime = (): number | null => {
  if (bootSeconds === undefined) {
    const m = /^btime (\d+)$/m.exec(readText('/proc/stat') ?? '');
    bootSeconds = m ? Number(m[1]) : null;
  }
  return bootSeconds;
};

const errCode = (err: unknown): string | undefined => (err as NodeJS.ErrnoException).code;

export function procSource(proc = '/proc'): ProcSource {
  const available = readText(`${proc}/self/stat`) !== null;
  return {
    available,
    pids: () => {
      try {
        return readdirSync(proc)
          .filter((n) => /^\d+$/.test(n))
          .map(Number);
      } catch {
        return [];
      }
    },
    fds: (pid) => {
      let names: string[];
      try {
        names = readdirSync(`${proc}/${pid}/fd`);
      } catch (err) {
        return errCode(err) === 'EACCES' || errCode(err) === 'EPERM' ? 'denied' : null;
      }
      const out: OpenFd[] = [];
      for (const name of names) {
        const link = `${proc}/${pid}/fd/${name}`;
        try {
          // Sockets, pipes and anon inodes read as "socket:[…]": only a path can be a file of ours.
          if (!readlinkSync(link).startsWith('/')) continue;
          const st = statSync(link, { bigint: true });
          if (st.isFile()) out.push({ fd: Number(name), dev: st.dev, ino: st.ino });
        } catch {
          // closed between readdir and stat: it holds nothing now
        }
      }
      return out;
    },
    flags: (pid, fd) => {
      const m = /^flags:\s*([0-7]+)$/m.exec(readText(`${proc}/${pid}/fdinfo/${fd}`) ?? '');
      return m ? parseInt(m[1], 8) : null;
    },
    info: (pid) => {
      const stat = readText(`${proc}/${pid}/stat`);
      if (stat === null) return null;
      // Fields are counted from the last ')': the command itself may hold spaces and ')' (proc(5)).
      const close = stat.lastIndexOf(')');
      const rest = stat.slice(close + 2).split(' ');
      const ticks = Number(rest[19]);
      const boot = bootTime();
      const command = (readText(`${proc}/${pid}/comm`) ?? stat.slice(stat.indexOf('(') + 1, close)).replace(/\n$/, '');
      return { command, pgrp: Number(rest[2]), startMs: boot !== null && Number.isFinite(ticks) ? boot * 1000 + (ticks * 1000) / TICKS_PER_SECOND : null };
    },
    nowMs: () => {
      // btime + uptime is the kernel's CLOCK_REALTIME (to btime's second), which stamps file
      // times; faketime moves Date.now() (CI's second pass runs 40 days ahead) but not these.
      const up = Number((readText(`${proc}/uptime`) ?? '').split(' ')[0]);
      const boot = bootTime();
      return boot !== null && Number.isFinite(up) && up > 0 ? boot * 1000 + up * 1000 : Date.now();
    },
  };
}
