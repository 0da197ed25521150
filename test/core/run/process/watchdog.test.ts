import { afterEach, describe, expect, it } from 'vitest';
import { appendFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Liveness, outputSignature } from '../../../../src/run/process/watchdog.js';
import { tempDir } from '../../../helpers/workspace.js';

// Issue 9 item 3: the idle watchdog's memory, shared by the local process group and the
// cluster job: output is life, and so is a change of what the run leaves on disk.

describe('Liveness', () => {
  let dir = '';
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('counts output and the output file growing as life, and nothing else', () => {
    dir = tempDir('checkroom-live-');
    const file = join(dir, 'out.md');
    const live = new Liveness(() => outputSignature(file), 1000);
    expect(live.idleFor(5000)).toBe(4000);
    writeFileSync(file, 'a');
    expect(live.idleFor(6000)).toBe(0);
    expect(live.idleFor(9000)).toBe(3000);
    live.touch(9500);
    expect(live.idleFor(10_000)).toBe(500);
    appendFileSync(file, 'more');
    expect(live.check(12_000)).toBe(12_000);
  });

  it('an initial signature that is not the present one makes the first look count', () => {
    const live = new Liveness(() => 'log:10', 0, '');
    expect(live.check(700)).toBe(700);
    expect(live.check(900)).toBe(700);
  });
});
