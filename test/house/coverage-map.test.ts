import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from '../helpers/workspace.js';

// Every module has its test or is named, with a reason, in test/untested-modules.txt (issue
// 19 item 4). "Its test" means a file under test/ (a test or a helper) imports it directly:
// reaching it through another module is not enough, as a reader looking for a module's test
// looks for its import. The list may only shrink: an entry whose module got a test, or no
// longer exists, fails too.

const ALLOWLIST = join(REPO, 'test/untested-modules.txt');

const walk = (dir: string, keep: (f: string) => boolean): string[] =>
  readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    if (statSync(p).isDirectory()) return n === 'fixtures' || n === 'node_modules' ? [] : walk(p, keep);
    return keep(p) ? [relative(REPO, p)] : [];
  });

/** src/, components/ and hooks/ modules (TypeScript, no declaration files). */
export const modules = (): string[] =>
  ['src', 'components', 'hooks'].flatMap((d) => walk(join(REPO, d), (f) => /\.tsx?$/.test(f) && !f.endsWith('.d.ts'))).sort();

/** Modules some file under test/ (bench excepted: it measures, it asserts nothing) imports by a relative path. */
export function importedByTests(): Set<string> {
  const hit = new Set<string>();
  const files = walk(join(REPO, 'test'), (f) => /\.tsx?$/.test(f) && !f.includes(`${join('test', 'bench')}/`));
  for (const file of files) {
    const text = readFileSync(join(REPO, file), 'utf8');
    for (const m of text.matchAll(/(?:from|import\()\s*'(\.[^']+)'/g)) {
      const base = relative(REPO, resolve(dirname(join(REPO, file)), m[1])).replace(/\.js$/, '');
      hit.add(`${base}.ts`).add(`${base}.tsx`);
    }
  }
  return hit;
}

/** The allowlist: path → reason (blank lines and # comments skipped). */
export function allowlist(text = readFileSync(ALLOWLIST, 'utf8')): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (line.trim() === '' || line.startsWith('#')) continue;
    const [, path, reason] = /^(\S+)\s*(.*)$/.exec(line.trim())!;
    out.set(path, reason.trim());
  }
  return out;
}

describe('coverage map: a test per module, or a reason', () => {
  const all = modules();
  const tested = importedByTests();
  const untested = all.filter((m) => !tested.has(m));
  const allowed = allowlist();

  it('a module no test imports is on the allowlist', () => {
    const missing = untested.filter((m) => !allowed.has(m));
    expect(missing, `imported by no test: write its test, or add "<path>  <why not>" to test/untested-modules.txt`).toEqual([]);
  });

  it('every allowlist entry has a reason, names a module that exists, and has no test yet', () => {
    expect([...allowed].filter(([, why]) => why.length < 10).map(([p]) => p)).toEqual([]);
    expect([...allowed.keys()].filter((p) => !all.includes(p))).toEqual([]);
    expect([...allowed.keys()].filter((p) => tested.has(p)), 'these now have a test: take them off the list').toEqual([]);
  });

  it('the map can fail: an entry without a reason and a module with a test are both found', () => {
    expect(untested).toContain('src/bin.ts');
    expect(tested.has('src/run/policy/budget.ts')).toBe(true);
    expect([...allowlist('src/x.ts\nsrc/y.ts  a reason long enough\n# note\n')]).toEqual([
      ['src/x.ts', ''],
      ['src/y.ts', 'a reason long enough'],
    ]);
  });
});
