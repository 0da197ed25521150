import { afterEach, describe, expect, it } from 'vitest';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, closeSync, ftruncateSync, mkdirSync, openSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readFileFacts } from '../../src/scan/file-facts.js';
import { scanArtifacts } from '../../src/scan/scan.js';
import { bookPreset } from '../../src/pipeline/book-preset.js';
import { readTail } from '../../src/ui/views/tail.js';
import { Confine } from '../../src/scan/confine.js';
import { loadWorkspace } from '../../src/workspace.js';
import type { StatusJson } from '../../src/cli/json.js';
import { NOBODY, runAsNobody } from '../helpers/nobody.js';
import { REPO, tempDir, writeFiles, PHASE_1_2, prose, summaries, marked } from '../helpers/workspace.js';

// Torture (issue 8 item 9): scans racing real processes that delete, recreate, swap and
// relink artifacts; FIFOs (must never hang); symlink loops and escapes; unreadable files
// read as a non-root user; huge sparse files. Bounded waits only; no timing thresholds.

const CLI = join(REPO, 'dist/src/cli.js');
const SECRET = 'SECRET-OUTSIDE-TEXT';
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});

const workspace = (): string => {
  const root = tempDir();
  writeFiles(root, { ...PHASE_1_2, 'meta/chapter-summaries.md': summaries(['ch01']), 'research/ch01-research.md': marked(prose(300), 'RESEARCH_COMPLETE') });
  mkdirSync(join(root, 'drafts'), { recursive: true });
  return root;
};
const outside = (): string => {
  const dir = tempDir('checkroom-outside-');
  // Unmarked, the secret on its last line: a reader that followed the link would keep it as the tail and quote it.
  writeFileSync(join(dir, 'secret.md'), `${prose(300)}\n\nThe key is ${SECRET}.\n`);
  return dir;
};

/** A real process that keeps replacing `path`: marked file, gone, directory, FIFO, link out, half-written. */
function churn(path: string, secret: string): ChildProcess {
  const src = `
    const fs = require('node:fs'); const cp = require('node:child_process');
    const p = ${JSON.stringify(path)}; const out = ${JSON.stringify(secret)};
    const body = '文'.repeat(300) + '。\\n\\n<!-- DRAFT_COMPLETE -->\\n';
    const rm = () => fs.rmSync(p, { recursive: true, force: true });
    let i = 0;
    for (;;) {
      try {
        rm();
        switch (i++ % 6) {
          case 0: fs.writeFileSync(p, body); break;
          case 1: fs.mkdirSync(p); break;
          case 2: cp.spawnSync('mkfifo', [p]); break;
          case 3: fs.symlinkSync(out, p); break;
          case 4: { const fd = fs.openSync(p, 'w'); fs.writeSync(fd, body.slice(0, 50)); fs.closeSync(fd); break; }
          case 5: fs.writeFileSync(p + '.tmp', body); fs.renameSync(p + '.tmp', p); break;
        }
      } catch {}
    }`;
  const c = spawn(process.execPath, ['-e', src], { stdio: 'ignore' });
  children.push(c);
  return c;
}

describe('torture: scan races', () => {
  it('scans while a process deletes, recreates, swaps and relinks an artifact: never throws, hangs or reads outside', async () => {
    const root = workspace();
    const out = outside();
    const path = join(root, 'drafts/ch01-draft.md');
    churn(path, join(out, 'secret.md'));
    const pipeline = bookPreset();
    const seen = new Set<string>();
    for (let i = 0; i < 400; i++) {
      const f = readFileFacts(path, 'drafts/ch01-draft.md', 'DRAFT_COMPLETE');
      expect(f.tail).not.toContain(SECRET);
      if (f.marker) expect(f.chars).toBeGreaterThanOrEqual(300);
      seen.add(f.marker ? 'done' : f.unreadable ? 'unreadable' : f.exists ? 'partial' : 'missing');
      const s = scanArtifacts(root, pipeline, ['ch01']);
      expect(s.files.get('drafts/ch01-draft.md')!.tail).not.toContain(SECRET);
      if (i % 40 === 0) await new Promise((r) => setTimeout(r, 5)); // let the churn run
    }
    const s = await loadWorkspace(root);
    expect(JSON.stringify(s)).not.toContain(SECRET);
    expect(seen.size).toBeGreaterThan(1); // the race was real: more than one state was seen
  });

  it('never hangs on FIFOs: as an artifact, behind a link, held open by a writer, as a long-memory file', async () => {
    const root = workspace();
    const fifo = join(root, 'drafts/ch01-draft.md');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    expect(spawnSync('mkfifo', [join(root, 'drafts/real-fifo')]).status).toBe(0);
    symlinkSync('real-fifo', join(root, 'drafts/ch02-draft.md'));
    spawnSync('rm', ['-f', join(root, 'meta/glossary.md')]);
    expect(spawnSync('mkfifo', [join(root, 'meta/glossary.md')]).status).toBe(0);
    // A writer that opens the FIFO and holds it without writing.
    const w = spawn('sh', ['-c', `exec 3>${JSON.stringify(join(root, 'drafts/real-fifo'))}; sleep 60`], { stdio: 'ignore' });
    children.push(w);
    const s = await loadWorkspace(root);
    for (const u of ['ch01', 'ch02']) expect(s.cells.find((c) => c.unit === u && c.step === 'draft')).toMatchObject({ disk: 'unreadable', marker: false });
    await expect(readTail(fifo, new Confine(root))).rejects.toThrow(/not a regular file/);
    await expect(readTail(join(root, 'drafts/ch02-draft.md'), new Confine(root))).rejects.toThrow(/not a regular file/);
    const { checkMemory } = await import('../../src/memory/check.js');
    const m = await checkMemory(root, s);
    expect(JSON.stringify(m.issues)).toContain('meta/glossary.md');
  });

  it('names symlink loops and long chains, and refuses escapes through links, directories and ../', async () => {
    const root = workspace();
    const out = outside();
    symlinkSync('ch01-draft.md', join(root, 'drafts/ch01-draft.md')); // a link to itself
    symlinkSync('.', join(root, 'drafts/loop'));
    symlinkSync(join(root, 'drafts'), join(root, 'drafts/up'));
    // A chain of 50 links (past the kernel's 40) inside the workspace.
    for (let i = 0; i < 50; i++) symlinkSync(`c${i + 1}`, join(root, `drafts/c${i}`));
    writeFileSync(join(root, 'drafts/c50'), marked(prose(300), 'DRAFT_COMPLETE'));
    symlinkSync('c0', join(root, 'drafts/ch02-draft.md'));
    symlinkSync(`../../${out.split('/').at(-1)}/secret.md`, join(root, 'drafts/ch03-draft.md'));
    symlinkSync(out, join(root, 'reviews'));
    const s = await loadWorkspace(root);
    const cell = (u: string, st = 'draft') => s.cells.find((c) => c.unit === u && c.step === st)!;
    expect(cell('ch01').error).toContain('symlink loop');
    expect(cell('ch02').disk).toBe('unreadable');
    expect(cell('ch03').error).toContain('symlink out of the workspace');
    expect(JSON.stringify(s)).not.toContain(SECRET);
    const f = readFileFacts(join(root, 'drafts/loop/up/loop/ch03-draft.md'), 'drafts/loop/up/loop/ch03-draft.md', 'DRAFT_COMPLETE');
    expect(f.tail).not.toContain(SECRET);
  });

  it('reads unreadable files as a non-root user without failing: permission denied, never a half-product', () => {
    if (process.getuid?.() !== 0) return; // the setup needs root to hand the workspace to nobody
    const root = workspace();
    writeFiles(root, { 'drafts/ch01-draft.md': marked(prose(300), 'DRAFT_COMPLETE'), 'drafts/ch02-draft.md': `# D\n\n${prose(300)}`, 'reviews/ch01-r1-code.md': prose(300) });
    symlinkSync('ch01-draft.md', join(root, 'drafts/ch03-draft.md'));
    chmodSync(join(root, 'drafts/ch01-draft.md'), 0o000);
    chmodSync(join(root, 'reviews'), 0o000);
    spawnSync('chown', ['-R', `${NOBODY}:${NOBODY}`, root]);
    chmodSync(join(root, 'drafts/ch02-draft.md'), 0o000);
    chownSync(join(root, 'drafts/ch02-draft.md'), 0, 0);
    const r = runAsNobody([process.execPath, CLI, 'status', root, '--json']);
    if (!r) return; // no runuser here: nothing to prove
    expect(r.stderr).toBe('');
    const s = JSON.parse(r.stdout) as StatusJson;
    for (const u of ['ch01', 'ch02', 'ch03']) {
      const c = s.cells.find((x) => x.unit === u && x.step === 'draft')!;
      expect(c.disk).toBe('unreadable');
      expect(s.partials.map((p) => p.path)).not.toContain(c.path);
    }
  });

  it('scans a workspace of 10 GB sparse artifacts with bounded reads (CLI status, counted by /proc)', () => {
    const root = workspace();
    const GB = 1024 ** 3;
    for (const u of ['ch01', 'ch02', 'ch03']) {
      const fd = openSync(join(root, `drafts/${u}-draft.md`), 'w');
      ftruncateSync(fd, 10 * GB);
      closeSync(fd);
    }
    const ioFile = join(root, '.io');
    // The CLI's own read count, written at exit: rchar counts every byte read(2) returned.
    const preload = `data:text/javascript,${encodeURIComponent(`import fs from 'node:fs'; process.on('exit', () => fs.writeFileSync(${JSON.stringify(ioFile)}, fs.readFileSync('/proc/self/io', 'utf8')));`)}`;
    const r = spawnSync(process.execPath, ['--import', preload, CLI, 'status', root, '--json'], { encoding: 'utf8', timeout: 120_000 });
    expect(r.status).toBe(0);
    const s = JSON.parse(r.stdout) as StatusJson;
    expect(s.cells.find((c) => c.unit === 'ch01' && c.step === 'draft')!.bytes).toBe(10 * GB);
    let io: string;
    try {
      io = readFileSync(ioFile, 'utf8');
    } catch {
      return; // no /proc/self/io here
    }
    const rchar = Number(/rchar:\s*(\d+)/.exec(io)![1]);
    expect(rchar).toBeLessThan(256 * 1024 * 1024);
  });
});
