import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SYSTEM_TESTS } from '../projects.js';
import { REPO } from '../helpers/workspace.js';

// The unit / system split (issue 19 item 4, test/projects.ts): every test file is in exactly
// one project, the system list names only files that exist, and a unit file reaches none of
// the process or tmux helpers, child_process, execa or the built binary, through any chain
// of test-local imports. A new file that starts processes fails here until it is listed.

const testFiles = (dir = join(REPO, 'test')): string[] =>
  readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    if (statSync(p).isDirectory()) return n === 'fixtures' ? [] : testFiles(p);
    return /\.test\.tsx?$/.test(n) ? [relative(REPO, p)] : [];
  });

/** Helpers that start processes or a terminal (.ts or .tsx): a unit test imports none of them. */
const PROCESS_HELPERS = ['tmux', 'slurm', 'nobody', 'writer', 'matrix', 'claude', 'gen-surfaces', 'child-supervisor', 'agents-room', 'sshd', 'store-agents'].map((h) => `test/helpers/${h}`);
const PROCESS_MODULES = ["'node:child_process'", "'child_process'", "'execa'"];

const resolveLocal = (from: string, spec: string): string | null => {
  const base = resolve(dirname(from), spec).replace(/\.js$/, '');
  for (const ext of ['.ts', '.tsx']) {
    try {
      if (statSync(base + ext).isFile()) return base + ext;
    } catch {
      // not this extension
    }
  }
  return null;
};

/** The test-local files `file` imports, directly or through other test-local files (src/ not followed). */
export function testImports(file: string, seen = new Set<string>()): Set<string> {
  const abs = resolve(REPO, file);
  if (seen.has(abs)) return seen;
  seen.add(abs);
  for (const m of readFileSync(abs, 'utf8').matchAll(/from '(\.[^']+)'/g)) {
    const r = resolveLocal(abs, m[1]);
    if (r && relative(REPO, r).startsWith('test/')) testImports(r, seen);
  }
  return seen;
}

/** Why `file` cannot be a unit test, or [] when nothing says so. */
export function systemSigns(file: string): string[] {
  const signs: string[] = [];
  for (const abs of testImports(file)) {
    const rel = relative(REPO, abs);
    // The rule's own files name the signs they look for.
    if (rel === 'test/projects.ts' || rel === 'test/house/projects.test.ts') continue;
    const text = readFileSync(abs, 'utf8');
    if (PROCESS_HELPERS.includes(rel.replace(/\.tsx?$/, ''))) signs.push(`imports ${rel}`);
    for (const m of PROCESS_MODULES) if (text.includes(`from ${m}`)) signs.push(`${rel} imports ${m}`);
    if (/\bdist\//.test(text)) signs.push(`${rel} runs the built binary (dist/)`);
    if (/TmuxSession|hasTmux/.test(text)) signs.push(`${rel} drives tmux`);
    // The calls that start processes through src/ (an agent run, the supervisor that launches
    // agents, a workspace with a fake agent), in the test file itself: helpers define them.
    if (abs === resolve(REPO, file) && /\b(startProcess|openSupervisor|fakeAgentWorkspace)\(/.test(text)) signs.push(`${rel} starts processes through src/`);
  }
  return signs;
}

describe('vitest projects: unit and system', () => {
  const all = testFiles();

  it('every system entry is a test file that exists, listed once', () => {
    expect(SYSTEM_TESTS.filter((f) => !all.includes(f))).toEqual([]);
    expect(SYSTEM_TESTS.filter((f, i) => SYSTEM_TESTS.indexOf(f) !== i)).toEqual([]);
  });

  it('every test file is in exactly one project', () => {
    const unit = all.filter((f) => !SYSTEM_TESTS.includes(f));
    expect(unit.length + SYSTEM_TESTS.length).toBe(all.length);
    expect(unit.filter((f) => SYSTEM_TESTS.includes(f))).toEqual([]);
  });

  it('a unit test starts no process, no tmux, no built binary, through any helper', () => {
    const offenders = all.filter((f) => !SYSTEM_TESTS.includes(f)).flatMap((f) => systemSigns(f).map((s) => `${f}: ${s}`));
    expect(offenders).toEqual([]);
  });

  it('the check can fail: a known system file shows its signs', () => {
    expect(systemSigns('test/e2e/tmux/e2e-tui.test.ts').join('\n')).toMatch(/helpers\/tmux\.ts/);
    expect(systemSigns('test/e2e/cli/cli.test.ts').join('\n')).toMatch(/child_process|dist/);
  });
});
