import { afterEach, describe, expect, it } from 'vitest';
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEntry } from '../../../src/many/entries.js';
import { createOverview, type Overview } from '../../../src/many/overview.js';
import type { ReadResult } from '../../../src/many/rows.js';
import { tempDir } from '../../helpers/workspace.js';
import { until } from '../../helpers/store.js';

// docs/many.md, Live: a local workspace is read again when its checkpoint or journal changes,
// long before its timer; a burst of journal lines costs one read per gap.

let ov: Overview | null = null;
afterEach(() => ov?.close());

describe('createOverview on a real directory', () => {
  it('a change to checkpoint.md or the journal is read at once; a burst waits for the gap after the last read', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, '.checkroom'));
    let reads = 0;
    const read = async (): Promise<ReadResult> => {
      reads++;
      return { kind: 'error', reason: 'not read here' };
    };
    ov = createOverview([parseEntry(dir)], { read, now: Date.now, localMs: 600_000, remoteMs: 600_000, gapMs: 1500 });
    await until(() => reads === 1, 'the first read');
    // Past the gap after the first read, so the change below is read without waiting for it.
    await new Promise((r) => setTimeout(r, 1600));
    writeFileSync(join(dir, 'checkpoint.md'), '# checkpoint\n');
    await until(() => reads === 2, 'the read a checkpoint change asks for', 10_000);
    const t0 = Date.now();
    for (let i = 0; i < 50; i++) appendFileSync(join(dir, '.checkroom', 'journal.jsonl'), '{}\n');
    await until(() => reads === 3, 'the read the journal asks for', 10_000);
    // Not before the gap after the last read (the burst came right after it).
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1000);
  });
});
