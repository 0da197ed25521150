import { afterAll, beforeAll, beforeEach, afterEach, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import ts from 'typescript';
import { acquireDriverLock, lockPath } from '../../../../src/run/supervisor/lock.js';
import { procStartTime } from '../../../../src/run/process/proc.js';

// The other checkroom instances are real node processes running the real lock code,
// transpiled once from src/run (node 20 cannot import .ts by itself).

let build: string;
let root: string;
const children: ChildProcess[] = [];

beforeAll(() => {
  build = mkdtempSync(join(tmpdir(), 'checkroom-lock-build-'));
  writeFileSync(join(build, 'package.json'), '{"type":"module"}');
  // The lock's imports, in src's own layout (lock.ts confines its paths through fs/confine-path.ts).
  for (const name of ['run/supervisor/lock', 'run/process/proc', 'fs/confine-path', 'text/sanitize']) {
    const source = readFileSync(resolve('src', `${name}.ts`), 'utf8');
    const out = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } });
    mkdirSync(dirname(join(build, name)), { recursive: true });
    writeFileSync(join(build, `${name}.js`), out.outputText);
  }
  writeFileSync(
    join(build, 'holder.mjs'),
    `import { acquireDriverLock } from './run/supervisor/lock.js';
     const lock = acquireDriverLock(process.argv[2]);
     console.log(JSON.stringify({ role: lock.role, pid: process.pid }));
     if (process.argv[3] === 'hold') setInterval(() => {}, 1000); else lock.release();`,
  );
});
afterAll(() => rmSync(build, { recursive: true, force: true }));
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'checkroom-lock-'));
});
afterEach(async () => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  rmSync(root, { recursive: true, force: true });
});

const runHolder = (mode: 'hold' | 'once'): { child: ChildProcess; report: Promise<{ role: string; pid: number }> } => {
  const child = spawn(process.execPath, [join(build, 'holder.mjs'), root, mode], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  const report = new Promise<{ role: string; pid: number }>((res, rej) => {
    let buf = '';
    child.stdout!.on('data', (d: Buffer) => {
      buf += d.toString();
      if (buf.includes('\n')) res(JSON.parse(buf));
    });
    child.once('exit', () => rej(new Error(`holder exited before reporting: ${buf}`)));
  });
  return { child, report };
};

const exited = (c: ChildProcess): Promise<void> => new Promise((r) => (c.exitCode !== null || c.signalCode !== null ? r() : c.once('exit', () => r())));

describe('acquireDriverLock', () => {
  it('makes a second process read-only while the first holds, and lets it take over after kill -9', async () => {
    const { child, report } = runHolder('hold');
    expect(await report).toEqual({ role: 'driver', pid: child.pid });

    const second = acquireDriverLock(root);
    expect(second.role).toBe('readonly');
    expect(second.holder).toMatchObject({ pid: child.pid, host: hostname() });
    expect(second.reason).toContain(String(child.pid));
    second.release(); // a read-only handle must not remove the holder's lock
    expect(JSON.parse(readFileSync(lockPath(root), 'utf8')).pid).toBe(child.pid);

    child.kill('SIGKILL');
    await exited(child);
    const third = acquireDriverLock(root);
    expect(third.role).toBe('driver');
    expect(JSON.parse(readFileSync(lockPath(root), 'utf8'))).toMatchObject({ pid: process.pid, procStart: procStartTime(process.pid), host: hostname() });
    third.release();
    expect(existsSync(lockPath(root))).toBe(false);
  });

  it('lets the next instance drive after a clean release', async () => {
    const { child, report } = runHolder('once');
    expect((await report).role).toBe('driver');
    await exited(child);
    const lock = acquireDriverLock(root);
    expect(lock.role).toBe('driver');
    lock.release();
  });

  it('treats a lock whose pid now belongs to another process (start time differs) as stale', () => {
    mkdirSync(join(root, '.checkroom'), { recursive: true });
    const recycled = { pid: process.pid, procStart: procStartTime(process.pid)! - 7, host: hostname(), startedAt: '2020-01-01T00:00:00Z' };
    writeFileSync(lockPath(root), JSON.stringify(recycled));
    const lock = acquireDriverLock(root);
    expect(lock.role).toBe('driver');
    lock.release();
  });

  it('treats a corrupt lock file as stale', () => {
    mkdirSync(join(root, '.checkroom'), { recursive: true });
    writeFileSync(lockPath(root), '{"pid": 12');
    expect(acquireDriverLock(root).role).toBe('driver');
  });

  it('does not take over a live lock from another host it cannot check', () => {
    mkdirSync(join(root, '.checkroom'), { recursive: true });
    writeFileSync(lockPath(root), JSON.stringify({ pid: 1, procStart: 1, host: 'elsewhere.example', startedAt: 'x' }));
    const lock = acquireDriverLock(root);
    expect(lock.role).toBe('readonly');
    expect(lock.holder?.host).toBe('elsewhere.example');
  });

  it('does not delete a successor lock on a late release', () => {
    const first = acquireDriverLock(root);
    expect(first.role).toBe('driver');
    const successor = { pid: 424242, procStart: 1, host: 'elsewhere.example', startedAt: 'x' };
    writeFileSync(lockPath(root), JSON.stringify(successor));
    first.release();
    expect(JSON.parse(readFileSync(lockPath(root), 'utf8'))).toEqual(successor);
  });

  it('lets exactly one of several racing processes take over a stale lock', async () => {
    mkdirSync(join(root, '.checkroom'), { recursive: true });
    writeFileSync(lockPath(root), JSON.stringify({ pid: 2 ** 22 + 999, procStart: 5, host: hostname(), startedAt: 'x' }));
    const racers = Array.from({ length: 4 }, () => runHolder('hold'));
    const roles = (await Promise.all(racers.map((r) => r.report))).map((r) => r.role).sort();
    expect(roles).toEqual(['driver', 'readonly', 'readonly', 'readonly']);
  });
});
