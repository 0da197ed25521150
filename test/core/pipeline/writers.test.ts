import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/pipeline/config/config.js';
import { outputOf, pathTakenBy, takenWhy, writersByPath } from '../../../src/run/process/writers.js';
import { tempDir } from '../../helpers/workspace.js';

// One live writer per output path (src/run/process/writers.ts), on the book preset's real pipeline:
// the memory steps of every chapter write one file, so a cell is refused by the path its
// step writes, not by its own key.

const bookPipeline = async () => {
  const root = tempDir('checkroom-writers-map-');
  writeFileSync(join(root, 'checkroom.yaml'), 'preset: book\nunits: { list: [ch01, ch02, ch03] }\n');
  return (await loadConfig(root)).pipeline;
};

describe('writers by path', () => {
  it("a cell's output path comes from its step's template; an unknown step has none", async () => {
    const p = await bookPipeline();
    expect(outputOf(p, 'ch02', 'draft')).toBe('drafts/ch02-draft.md');
    expect(outputOf(p, 'ch01', 'memory')).toBe(outputOf(p, 'ch03', 'memory'));
    expect(outputOf(p, 'ch01', 'no-such-step')).toBeNull();
  });

  it('the shared memory file is taken by the first writer; a draft of another chapter is free', async () => {
    const p = await bookPipeline();
    const byPath = writersByPath(p, [{ unit: 'ch01', step: 'memory' }, { unit: 'ch02', step: 'memory' }, { unit: 'ch01', step: 'draft' }, { unit: 'ch01', step: 'nope' }]);
    expect(byPath.size).toBe(2);
    expect(pathTakenBy(p, byPath, 'ch03', 'memory')).toEqual({ unit: 'ch01', step: 'memory' });
    expect(pathTakenBy(p, byPath, 'ch02', 'draft')).toBeNull();
    expect(pathTakenBy(p, byPath, 'ch01', 'nope')).toBeNull();
  });

  it('says who holds the file, or that the run is its own', async () => {
    const p = await bookPipeline();
    const memory = outputOf(p, 'ch03', 'memory');
    expect(takenWhy(p, { unit: 'ch01', step: 'memory' }, 'ch03', 'memory')).toBe(`${memory} is being written by ch01 memory; one writer per file`);
    expect(takenWhy(p, { unit: 'ch02', step: 'draft' }, 'ch02', 'draft')).toBe('drafts/ch02-draft.md is being written by its own run');
  });
});
