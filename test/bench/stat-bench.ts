import { lstatSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { generateWorkspace } from './generate.js';
import { median } from './measure.js';

// Issue 10 item 2 (warm `status --json`): the one stat per artifact that validates the facts
// cache, measured alone, each way Node 20 offers without process.binding: lstat or stat of
// the absolute path, lstat relative to the workspace after one chdir, lstat of the bare name
// after a chdir per directory, and bigint stats. CPU (user + sys) of the loop in this
// process, median of rounds that alternate the variants. `CHECKROOM_BENCH_ONLY=stat`.

type Files = { root: string; dirs: [string, string][] };

const VARIANTS: Record<string, (f: Files) => void> = {
  'lstatSync(absolute)': ({ root, dirs }) => {
    for (const [d, n] of dirs) lstatSync(`${root}/${d}/${n}`, { throwIfNoEntry: false });
  },
  'statSync(absolute)': ({ root, dirs }) => {
    for (const [d, n] of dirs) statSync(`${root}/${d}/${n}`, { throwIfNoEntry: false });
  },
  'lstatSync(absolute, bigint)': ({ root, dirs }) => {
    for (const [d, n] of dirs) lstatSync(`${root}/${d}/${n}`, { bigint: true, throwIfNoEntry: false });
  },
  'lstatSync(relative) after chdir(root)': ({ root, dirs }) => {
    process.chdir(root);
    for (const [d, n] of dirs) lstatSync(`${d}/${n}`, { throwIfNoEntry: false });
  },
  'lstatSync(name) after chdir(dir)': ({ root, dirs }) => {
    let cur = '';
    for (const [d, n] of dirs) {
      if (d !== cur) process.chdir(join(root, (cur = d)));
      lstatSync(n, { throwIfNoEntry: false });
    }
  },
};

const cpuMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

export function statBench(base: string, n: number, lines: string[], rounds = 7): void {
  const root = generateWorkspace(join(base, `ws-${n}`), n);
  const dirs = readdirSync(root, { withFileTypes: true })
    .filter((d) => d.isDirectory() && !d.name.startsWith('.'))
    .flatMap((d) => readdirSync(join(root, d.name)).map((name): [string, string] => [d.name, name]));
  const cwd = process.cwd();
  const runs: Record<string, number[]> = Object.fromEntries(Object.keys(VARIANTS).map((k) => [k, []]));
  try {
    for (let r = 0; r < rounds; r++) {
      for (const [k, f] of Object.entries(VARIANTS)) {
        const t0 = cpuMs();
        f({ root, dirs });
        runs[k].push(cpuMs() - t0);
      }
    }
  } finally {
    process.chdir(cwd);
  }
  const base0 = median(runs['lstatSync(absolute)']);
  lines.push(`## One stat per file, ${dirs.length} files (CPU, median of ${rounds} alternating rounds)`, '');
  lines.push('| variant | CPU | ÷ lstatSync(absolute) |', '|---|---:|---:|');
  for (const [k, xs] of Object.entries(runs)) lines.push(`| ${k} | ${median(xs).toFixed(0)} ms | ${(median(xs) / base0).toFixed(2)} |`);
  lines.push('');
}
