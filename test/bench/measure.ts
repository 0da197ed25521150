import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

// Wall time and peak RSS of a command, measured the same way for ours and the baselines.

export interface Sample {
  ms: number;
  maxRssKb: number | null;
}

const TIME = '/usr/bin/time';

export function timeCommand(cmd: string, args: string[]): Sample {
  const useTime = existsSync(TIME);
  const t0 = performance.now();
  const r = useTime
    ? spawnSync(TIME, ['-f', '%M', cmd, ...args], { encoding: 'utf8', maxBuffer: 1 << 30 })
    : spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 1 << 30 });
  const ms = performance.now() - t0;
  const kb = useTime ? Number(r.stderr.trim().split('\n').at(-1)) : NaN;
  return { ms, maxRssKb: Number.isFinite(kb) ? kb : null };
}

export const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};

export function repeat(n: number, f: () => Sample): Sample {
  const runs = Array.from({ length: n }, f);
  const rss = runs.map((r) => r.maxRssKb).filter((x): x is number => x !== null);
  return { ms: median(runs.map((r) => r.ms)), maxRssKb: rss.length ? Math.max(...rss) : null };
}

export const mb = (kb: number | null): string => (kb === null ? 'n/a' : `${(kb / 1024).toFixed(0)} MB`);
