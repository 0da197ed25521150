import { describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { groupMembers, isSameProcessAlive, procStartTime, reapGroup } from '../../../../src/run/process/proc.js';

// reapGroup is what a restarted checkroom uses on runs recorded before it was kill -9'ed.

const firstLine = (c: ChildProcess): Promise<string> =>
  new Promise((resolve) => {
    let buf = '';
    c.stdout!.on('data', (d: Buffer) => {
      buf += d.toString();
      if (buf.includes('\n')) resolve(buf);
    });
  });

const exited = (c: ChildProcess): Promise<void> => new Promise((r) => (c.exitCode !== null || c.signalCode !== null ? r() : c.once('exit', () => r())));

describe('proc', () => {
  it('reads our own start time and recognises a changed start time as another process', () => {
    const start = procStartTime(process.pid);
    expect(start).toBeGreaterThan(0);
    expect(isSameProcessAlive(process.pid, start)).toBe(true);
    expect(isSameProcessAlive(process.pid, start! - 1)).toBe(false);
    expect(procStartTime(2 ** 22 + 12345)).toBeNull();
    expect(isSameProcessAlive(-1, null)).toBe(false);
  });

  it('reaps a recorded group, stubborn grandchildren included', async () => {
    const child = spawn('sh', ['-c', `trap '' TERM; sh -c 'trap "" TERM; while :; do sleep 0.05; done' & echo "gc $!"; wait`], {
      detached: true,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const gc = Number(/gc (\d+)/.exec(await firstLine(child))![1]);
    const start = procStartTime(child.pid!);
    expect(groupMembers(child.pid!).map((m) => m.pid)).toEqual(expect.arrayContaining([child.pid, gc]));
    expect(await reapGroup(child.pid!, start, 100)).toBe('reaped');
    await exited(child);
    expect(isSameProcessAlive(child.pid!, null)).toBe(false);
    expect(isSameProcessAlive(gc, null)).toBe(false);
    expect(await reapGroup(child.pid!, start, 100)).toBe('gone');
  });

  it('reaps the orphans of a group whose leader already died', async () => {
    const child = spawn('sh', ['-c', `sh -c 'trap "" TERM; while :; do sleep 0.05; done' & echo "gc $!"`], { detached: true, stdio: ['ignore', 'pipe', 'ignore'] });
    const gc = Number(/gc (\d+)/.exec(await firstLine(child))![1]);
    const start = procStartTime(child.pid!);
    await exited(child);
    expect(isSameProcessAlive(gc, null)).toBe(true);
    expect(await reapGroup(child.pid!, start, 100)).toBe('reaped');
    expect(isSameProcessAlive(gc, null)).toBe(false);
  });

  it('leaves a process alone when its start time does not match (recycled pid)', async () => {
    const child = spawn('sleep', ['30'], { detached: true, stdio: 'ignore' });
    try {
      const start = procStartTime(child.pid!)!;
      expect(await reapGroup(child.pid!, start - 1, 100)).toBe('foreign');
      expect(isSameProcessAlive(child.pid!, start)).toBe(true);
    } finally {
      child.kill('SIGKILL');
      await exited(child);
    }
  });
});
