import { afterEach, describe, expect, it } from 'vitest';
import { chmodSync, chownSync, linkSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { checkLive, decideLive, type LiveFile } from '../../../src/holders/liveness.js';
import { scanHolders, writesBy } from '../../../src/holders/holders.js';
import type { ProcSource } from '../../../src/holders/proc-source.js';
import { liveWhy, uncheckedNote } from '../../../src/holders/words.js';
import { REPO, tempDir, writeFiles } from '../../helpers/workspace.js';
import { holdOpen, killWriters, settle } from '../../helpers/writer.js';
import { NOBODY, runAsNobody } from '../../helpers/nobody.js';

// "Is this file live, and who holds it" (issue 17 item 1) on real processes and real files:
// a writer checkroom did not launch, quiet, holds drafts/ch05-draft.md open for append.

afterEach(killWriters);

const QUIET = { quietMs: 3_000 };

function draft(): { root: string; rel: string; abs: string } {
  const root = tempDir('checkroom-holders-');
  const rel = 'drafts/ch05-draft.md';
  writeFiles(root, { [rel]: '# ch05\n\nThe half of a chapter\n' });
  settle(root);
  return { root, rel, abs: join(root, rel) };
}

describe('checkLive: processes holding a file open for writing', () => {
  it('a quiet external appender makes the file live, named by pid and command, not launched by checkroom', async () => {
    const { root, rel, abs } = draft();
    expect(checkLive(root, [rel], QUIET).get(rel)).toEqual({ path: rel, unchecked: 0, live: false });
    const w = await holdOpen(abs);
    const l = checkLive(root, [rel], QUIET).get(rel) as LiveFile;
    expect(l).toMatchObject({ live: true, kind: 'held', holders: [{ pid: w.pid, command: 'sh', ours: false }] });
    expect(liveWhy(l)).toMatch(new RegExp(`^drafts/ch05-draft\\.md is being written by pid ${w.pid} \\(sh\\) since \\d\\d:\\d\\d \\(not launched by checkroom\\)$`));
    // Its process group is one of ours: launched by checkroom.
    const ours = checkLive(root, [rel], { ...QUIET, ours: new Set([(l.kind === 'held' && l.holders[0].pgrp) || -1]) }).get(rel) as LiveFile;
    expect(liveWhy(ours)).toContain('(launched by checkroom)');
    await w.finish('more\n');
    expect(checkLive(root, [rel], { quietMs: 0 }).get(rel)?.live).toBe(false);
  });

  it('a file opened read-only by another process is not live', async () => {
    const { root, rel, abs } = draft();
    await holdOpen(abs, 'read');
    expect(checkLive(root, [rel], QUIET).get(rel)).toEqual({ path: rel, unchecked: 0, live: false });
  });

  it('matches by device and inode: the writer of a renamed or hard-linked file still holds it', async () => {
    const { root, rel, abs } = draft();
    const w = await holdOpen(abs);
    renameSync(abs, join(root, 'drafts/ch05-renamed.md'));
    linkSync(join(root, 'drafts/ch05-renamed.md'), join(root, 'drafts/ch05-link.md'));
    const m = checkLive(root, ['drafts/ch05-renamed.md', 'drafts/ch05-link.md', rel], QUIET);
    expect(m.get('drafts/ch05-renamed.md')).toMatchObject({ live: true, holders: [{ pid: w.pid }] });
    expect(m.get('drafts/ch05-link.md')).toMatchObject({ live: true, holders: [{ pid: w.pid }] });
    // A new file under the old name is another file: nobody holds it.
    writeFileSync(abs, 'new\n');
    settle(root);
    expect(checkLive(root, [rel], QUIET).get(rel)?.live).toBe(false);
  });

  it('a file written within the quiet window is live; past it, it is not', () => {
    const root = tempDir('checkroom-holders-');
    writeFiles(root, { 'drafts/ch05-draft.md': 'just now\n' });
    const l = checkLive(root, ['drafts/ch05-draft.md'], QUIET).get('drafts/ch05-draft.md') as LiveFile;
    expect(l).toMatchObject({ live: true, kind: 'recent', quietMs: 3_000 });
    expect(liveWhy(l)).toMatch(/^drafts\/ch05-draft\.md changed \d+(\.\d)? s ago, within the quiet window \(3 s\) \(a writer may be pausing, here or on another host\)$/);
    expect(checkLive(root, ['drafts/ch05-draft.md'], { quietMs: 0 }).get('drafts/ch05-draft.md')?.live).toBe(false);
    settle(root, 10_000);
    expect(checkLive(root, ['drafts/ch05-draft.md'], QUIET).get('drafts/ch05-draft.md')?.live).toBe(false);
  });

  it('as another user, the processes it cannot read are counted and said', async () => {
    if (process.getuid?.() !== 0) return; // the setup needs root: a root process nobody cannot look into
    const { root, rel, abs } = draft();
    chmodSync(root, 0o755);
    chownSync(join(root, 'drafts'), NOBODY, NOBODY);
    await holdOpen(abs);
    const mod = pathToFileURL(join(REPO, 'dist/src/holders/liveness.js')).href;
    const r = runAsNobody([process.execPath, '--input-type=module', '-e', `const m = await import(${JSON.stringify(mod)}); console.log(JSON.stringify(m.checkLive(${JSON.stringify(root)}, [${JSON.stringify(rel)}], { quietMs: 3000 }).get(${JSON.stringify(rel)})));`]);
    if (!r) return; // no runuser here
    expect(r.stderr).toBe('');
    const seen = JSON.parse(r.stdout) as { live: boolean; unchecked: number };
    // Root's writer is invisible to nobody: not live by /proc, and the blind spot is counted.
    expect(seen.live).toBe(false);
    expect(seen.unchecked).toBeGreaterThan(0);
    expect(uncheckedNote(seen.unchecked)).toMatch(/^could not check \d+ process(es)? of other users \(not root\)$/);
    expect(readFileSync(abs, 'utf8')).toBe('# ch05\n\nThe half of a chapter\n');
  });
});

describe('the decision on plain values', () => {
  const fake = (fds: Record<number, ReturnType<ProcSource['fds']>>, flags: Record<string, number>): ProcSource => ({
    available: true,
    pids: () => Object.keys(fds).map(Number),
    fds: (pid) => fds[pid] ?? null,
    flags: (pid, fd) => flags[`${pid}/${fd}`] ?? null,
    info: (pid) => ({ command: `p${pid}`, pgrp: pid, startMs: 0 }),
    nowMs: () => 10_000,
  });

  it('O_WRONLY and O_RDWR write, O_RDONLY does not; denied fd tables are counted; only the files at hand cost a fdinfo read', () => {
    expect([0o0, 0o1, 0o2, 0o100001, 0o2002, 0o100000].map(writesBy)).toEqual([false, true, true, true, true, false]);
    const asked: string[] = [];
    const src = fake(
      { 10: [{ fd: 3, dev: 1n, ino: 7n }, { fd: 4, dev: 1n, ino: 8n }], 11: [{ fd: 5, dev: 1n, ino: 7n }], 12: 'denied', 13: 'denied' },
      { '10/3': 0o102001, '10/4': 0o102001, '11/5': 0o100000 },
    );
    const scan = scanHolders({ ...src, flags: (p, f) => (asked.push(`${p}/${f}`), src.flags(p, f)) }, new Set(['1:7']));
    expect(asked).toEqual(['10/3', '11/5']);
    expect(scan.unchecked).toBe(2);
    expect([...scan.writers.keys()]).toEqual(['1:7']);
    expect(decideLive('a', { key: '1:7', mtimeMs: 0 }, scan, 10_000, 3_000, new Set([10]))).toMatchObject({ live: true, kind: 'held', unchecked: 2, holders: [{ pid: 10, ours: true }] });
    expect(decideLive('b', { key: '1:8', mtimeMs: 9_000 }, scan, 10_000, 3_000, new Set())).toMatchObject({ live: true, kind: 'recent', agoMs: 1_000 });
    expect(decideLive('c', { key: '1:8', mtimeMs: 6_000 }, scan, 10_000, 3_000, new Set())).toEqual({ path: 'c', unchecked: 2, live: false });
    expect(decideLive('d', null, scan, 10_000, 3_000, new Set())).toEqual({ path: 'd', unchecked: 2, live: false });
  });

  it('without /proc nothing is scanned and only the quiet window speaks', () => {
    const none: ProcSource = { ...fake({}, {}), available: false, pids: () => { throw new Error('scanned'); } };
    expect(scanHolders(none, new Set(['1:1']))).toEqual({ writers: new Map(), unchecked: 0, checked: false });
  });
});
