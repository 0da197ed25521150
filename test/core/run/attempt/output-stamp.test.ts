import { mkdirSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { outputStamp } from '../../../../src/run/attempt/output-stamp.js';
import { formatMinute } from '../../../../src/text/local-time.js';
import { tempDir } from '../../../helpers/workspace.js';

// A run's output file as the file system reports it (src/run/attempt/output-stamp.ts), on real files:
// the file's own size and mtime, never the process clock; and how a moment is written
// (src/text/local-time.ts).

describe('outputStamp', () => {
  it("is the file's size and mtime as stat says, to the second set", () => {
    const dir = tempDir();
    const f = join(dir, 'ch01-draft.md');
    writeFileSync(f, 'twelve bytes');
    const at = new Date('2020-01-02T03:04:05.000Z');
    utimesSync(f, at, at);
    expect(outputStamp(f)).toEqual({ bytes: 12, mtimeMs: at.getTime() });
  });

  it('is null for no path, a missing file or a directory; a link is read through to its file', () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'sub'));
    writeFileSync(join(dir, 'real.md'), 'abc');
    symlinkSync(join(dir, 'real.md'), join(dir, 'link.md'));
    expect(outputStamp(null)).toBeNull();
    expect(outputStamp(join(dir, 'missing.md'))).toBeNull();
    expect(outputStamp(join(dir, 'sub'))).toBeNull();
    expect(outputStamp(join(dir, 'link.md'))?.bytes).toBe(3);
  });
});

describe('formatMinute', () => {
  it('writes local time to the minute, zero-padded', () => {
    expect(formatMinute(new Date(2026, 0, 5, 7, 9, 59))).toBe('2026-01-05 07:09');
    expect(formatMinute(new Date(2026, 10, 30, 23, 0))).toBe('2026-11-30 23:00');
  });
});
