import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { REPO } from '../helpers/workspace.js';

// Issue 16 item 1: every unlink, rename, write, mkdir, link, chmod, listen and connect in
// src/ goes through assertInside (src/fs/confine-path.ts), or sits in a file reviewed below
// whose targets come from a path that did. A new call anywhere, or one more in a reviewed
// file, fails here until it is routed through the gate or reviewed.

const PATH_CALL =
  /(?<![\w.])(?:fs\.|fsp\.|promises\.)?(?:unlink|unlinkSync|rm|rmSync|rmdir|rmdirSync|rename|renameSync|writeFile|writeFileSync|appendFile|appendFileSync|mkdir|mkdirSync|mkdtemp|mkdtempSync|link|linkSync|symlink|symlinkSync|copyFile|copyFileSync|cp|cpSync|chmod|chmodSync|chown|chownSync|lchown|truncate|truncateSync|utimes|utimesSync|createWriteStream)\(/g;
const OPEN_WRITE = /(?<![\w.])(?:fs\.|fsp\.)?(?:open|openSync)\([^;\n]*?(?:['"](?:w|wx|a|ax|a\+|w\+|r\+|wx\+)['"]|O_WRONLY|O_RDWR|O_CREAT|O_APPEND)/g;
const NET = /(?:\.listen|(?<![\w.])connect|createConnection)\(/g;

/** Calls not checked on their own line, per file, each with why that is safe (reviewed for issue 16 item 1). */
const REVIEWED: Record<string, { unguarded: number; why: string }> = {
  'src/backups/fs.ts': { unguarded: 1, why: 'copyFromHandle removes its own half-written copy, whose name it asserted when it created it' },
  'src/fs/atomic-copy.ts': { unguarded: 9, why: 'copyFileExclusive asserts its destination first; every other name is that destination or its temp sibling' },
  'src/fs/atomic-write.ts': { unguarded: 3, why: 'writeFileAtomic asserts its target first; the temp file is that target’s sibling' },
  'src/run/journal/journal.ts': { unguarded: 1, why: 'stateDir(dir) mkdirs a directory its caller asserted' },
  'src/run/supervisor/lock.ts': { unguarded: 5, why: 'acquireDriverLock/unlockDriverLock assert .checkroom/driver.lock; every lock file is its sibling' },
  'src/run/process/log.ts': { unguarded: 3, why: 'the log path is made and asserted in supervisor-attempt.ts (logPathOf under .checkroom/runs); the note append writes the same path' },
  'src/run/process/relay.ts': { unguarded: 2, why: 'appends to the run log its parent asserted (supervisor-attempt.ts)' },
  'src/run/process/members.ts': { unguarded: 2, why: 'a local readlink() helper named link: reads /proc, writes nothing' },
  'src/socket/where.ts': { unguarded: 1, why: 'creates the runtime directory itself, from the environment and uid, never from the workspace; checkDir checks it' },
  'src/demo/model-server.ts': { unguarded: 1, why: 'the demo model listens on 127.0.0.1 port 0: no path' },
  'src/demo/start.ts': { unguarded: 5, why: 'npm start: a fresh mkdtemp copy of the repository’s own demo, never a user’s workspace' },
};

const walk = (d: string): string[] =>
  readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(d, e.name)) : /\.tsx?$/.test(e.name) ? [join(d, e.name)] : []));

/** Per file: calls that mutate a path (or dial one), and how many name assertInside on their own line. */
function callSites(): Map<string, { all: number; unguarded: string[] }> {
  const out = new Map<string, { all: number; unguarded: string[] }>();
  for (const abs of walk(join(REPO, 'src'))) {
    const lines = readFileSync(abs, 'utf8').split('\n');
    const code = lines.map((l) => (/^\s*(\/\/|\*|\/\*)/.test(l) ? '' : l)).join('\n');
    const hits = [PATH_CALL, OPEN_WRITE, NET].flatMap((re) => [...code.matchAll(re)]);
    if (!hits.length) continue;
    const unguarded = hits
      .map((m) => code.slice(m.index, code.indexOf('\n', m.index) >>> 0 || undefined))
      .filter((rest) => !rest.includes('assertInside('));
    out.set(relative(REPO, abs).split('\\').join('/'), { all: hits.length, unguarded });
  }
  return out;
}

describe('every path checkroom mutates or dials passes the one gate (issue 16 item 1)', () => {
  const sites = callSites();

  it('finds the call sites it walks (the walk itself works)', () => {
    expect(sites.get('src/socket/server.ts')?.all).toBeGreaterThanOrEqual(5);
    expect(sites.get('src/socket/server.ts')?.unguarded).toEqual([]);
    expect(sites.get('src/socket/token.ts')?.unguarded).toEqual([]);
    expect(sites.get('src/socket/client.ts')?.unguarded).toEqual([]);
  });

  it('no file has an unchecked call that was not reviewed, and no reviewed file gained one', () => {
    const got = Object.fromEntries([...sites].filter(([, s]) => s.unguarded.length).map(([f, s]) => [f, s.unguarded.length]));
    const want = Object.fromEntries(Object.entries(REVIEWED).map(([f, r]) => [f, r.unguarded]));
    const detail = [...sites].filter(([f, s]) => s.unguarded.length !== (REVIEWED[f]?.unguarded ?? 0)).map(([f, s]) => `${f}:\n  ${s.unguarded.join('\n  ')}`);
    expect(got, `route these through assertInside (src/fs/confine-path.ts) or review them here:\n${detail.join('\n')}`).toEqual(want);
  });

  it('the reviewed writers that depend on a gate upstream still call it', () => {
    for (const f of ['src/fs/atomic-write.ts', 'src/fs/atomic-copy.ts', 'src/backups/fs.ts', 'src/run/supervisor/lock.ts', 'src/run/journal/journal.ts', 'src/fs/sweep-temp.ts', 'src/run/supervisor/attempt.ts'])
      expect(readFileSync(join(REPO, f), 'utf8'), f).toContain('assertInside(');
  });
});
