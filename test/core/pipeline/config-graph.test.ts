import { describe, expect, it } from 'vitest';
import type { PipelineDef, StepDef } from '../../../src/types.js';
import { bookPreset } from '../../../src/pipeline/book-preset.js';
import { ConfigError, validatePipeline } from '../../../src/pipeline/config/config.js';
import { formatDuration, parseDuration } from '../../../src/pipeline/duration.js';
import { gatesPreset } from '../../../src/pipeline/gates-preset.js';
import { findCycle, findUnitProblems } from '../../../src/pipeline/graph.js';

const withSteps = (edit: (steps: StepDef[]) => void): PipelineDef => {
  const p = bookPreset();
  edit(p.steps);
  return p;
};
const byId = (steps: StepDef[], id: string): StepDef => steps.find((s) => s.id === id)!;

const errorOf = (p: PipelineDef): ConfigError => {
  try {
    validatePipeline(p);
  } catch (e) {
    if (e instanceof ConfigError) return e;
    throw e;
  }
  throw new Error('expected validatePipeline to throw');
};

describe('validatePipeline', () => {
  it('accepts both built-in presets', () => {
    expect(() => validatePipeline(bookPreset())).not.toThrow();
    expect(() => validatePipeline(gatesPreset())).not.toThrow();
  });

  it('names a cycle as a path a → b → a, without a position', () => {
    const e = errorOf(withSteps((s) => (byId(s, 'research').dependsOn = ['draft'])));
    expect(e.message).toBe('built-in preset "book": dependency cycle research → draft → research (expected dependencies without cycles)');
    expect(e.line).toBeNull();
    expect(e.file).toBe('built-in preset "book"');
  });

  it('finds a self-dependency as a cycle', () => {
    expect(findCycle([{ ...bookPreset().steps[0], dependsOn: ['research'] }])).toEqual(['research', 'research']);
    expect(findCycle(bookPreset().steps)).toBeNull();
  });

  it('rejects an unknown dependency target', () => {
    expect(errorOf(withSteps((s) => byId(s, 'review').dependsOn.push('r4'))).message).toContain('step "review" depends on unknown step "r4"');
  });

  it('rejects duplicate step ids', () => {
    expect(errorOf(withSteps((s) => s.push({ ...byId(s, 'draft') }))).message).toContain('duplicate step id "draft"');
  });

  it('rejects a step in a phase that does not exist', () => {
    expect(errorOf(withSteps((s) => (byId(s, 'html').phase = 6))).message).toContain('step "html" is in phase 6, which does not exist');
  });

  it('requires {unit} in the path of a file step but not of an entry step', () => {
    expect(errorOf(withSteps((s) => (byId(s, 'draft').path = 'drafts/all.md'))).message).toContain('lacks {unit}');
    expect(byId(bookPreset().steps, 'memory').path).not.toContain('{unit}');
  });

  it('requires markers of the form ^[A-Z][A-Z0-9_]*$ and a marker on file steps', () => {
    expect(errorOf(withSteps((s) => (byId(s, 'draft').marker = 'draft-complete'))).expected).toContain('^[A-Z][A-Z0-9_]*$');
    expect(errorOf(withSteps((s) => (byId(s, 'draft').marker = '1_DONE'))).message).toContain('invalid marker "1_DONE"');
    expect(errorOf(withSteps((s) => (byId(s, 'draft').marker = null))).message).toContain('file step "draft" has no marker');
  });
});

describe('findUnitProblems', () => {
  it('points at the batch entry that names a unit twice', () => {
    const problems = findUnitProblems({ pattern: 'ch\\d{2}' }, [{ id: 1, units: ['ch01'] }, { id: 2, units: ['ch02', 'ch01'] }]);
    expect(problems).toEqual([{ path: ['batches', 1, 'units', 1], problem: 'unit "ch01" is in batch 1 and batch 2', expected: 'each unit in one batch' }]);
  });
});

describe('durations', () => {
  it.each([
    [30, 30_000],
    [0.25, 250],
    ['250ms', 250],
    ['30s', 30_000],
    ['5m', 300_000],
    ['1h', 3_600_000],
    ['1m30s', 90_000],
    ['1.5s', 1_500],
    [' 10m ', 600_000],
  ])('%j is %d ms', (input, ms) => {
    expect(parseDuration(input)).toBe(ms);
  });

  it.each([['-1s'], [-1], ['abc'], [''], ['5 m'], ['5'], ['1d'], [Infinity], [NaN], [null], [true]])('%j is not a duration', (input) => {
    expect(parseDuration(input)).toBeNull();
  });

  it('formats for messages', () => {
    expect([formatDuration(1_500), formatDuration(600_000), formatDuration(7_200_000), formatDuration(250)]).toEqual(['1.5s', '10m', '2h', '250ms']);
  });
});
