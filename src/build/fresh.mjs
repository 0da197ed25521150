// `npm start` runs the built demo at once when the build is current, and builds first only
// when a source is newer than the last build (`npm start` ran tsc every time, 13–17 s
// before the first frame on a fresh clone that `npm install` had already built).
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const STAMP = 'dist/bundle/.built';
const SOURCES = ['src', 'components', 'hooks'];
const FILES = ['package.json', 'package-lock.json', 'tsconfig.json'];

const mtime = (p) => {
  try {
    return statSync(p).mtimeMs;
  } catch {
    return null;
  }
};

/** The newest mtime under the sources: a directory walk of a few hundred files. */
function newestSource() {
  let newest = 0;
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else newest = Math.max(newest, mtime(p) ?? 0);
    }
  };
  for (const d of SOURCES) walk(d);
  for (const f of FILES) newest = Math.max(newest, mtime(f) ?? 0);
  return newest;
}

const built = mtime(STAMP);
if (built === null || newestSource() > built) {
  const r = spawnSync('npm', ['run', 'build', '--silent'], { stdio: 'inherit' });
  process.exit(r.status ?? 1);
}
