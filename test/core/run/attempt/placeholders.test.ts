import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { describeArgv, expandArgv } from '../../../../src/run/attempt/placeholders.js';

const values = {
  unit: 'ch03',
  step: 'draft',
  output: '/ws/drafts/ch03-draft.md',
  marker: 'DRAFT_COMPLETE',
  workspace: '/ws',
  attempt: '2',
  backup: '/ws/drafts/ch03-draft.md.bak.1',
  last_error: 'boom',
};

describe('expandArgv', () => {
  it('replaces every known placeholder, also inside larger elements', () => {
    const argv = expandArgv(['node', 'agent.mjs', '--unit', '{unit}', '--out={output}', '{step}:{attempt}', '{marker}', '{workspace}', '{backup}', '{last_error}'], values);
    expect(argv).toEqual(['node', 'agent.mjs', '--unit', 'ch03', '--out=/ws/drafts/ch03-draft.md', 'draft:2', 'DRAFT_COMPLETE', '/ws', '/ws/drafts/ch03-draft.md.bak.1', 'boom']);
  });

  it('keeps hostile values literal and one argument each', () => {
    const hostile = ['$(rm -rf /)', 'a; rm -rf ~', '`id`', 'line1\nline2', '-rf', "it's \"quoted\"", '$&$1', '{unit}', '   spaced   ', ''];
    for (const value of hostile) {
      const argv = expandArgv(['prog', '{last_error}', 'x{last_error}y'], { ...values, last_error: value });
      expect(argv).toHaveLength(3);
      expect(argv[1]).toBe(value);
      expect(argv[2]).toBe(`x${value}y`);
    }
  });

  it('throws naming an unknown placeholder', () => {
    expect(() => expandArgv(['prog', '{chapter}'], values)).toThrow(/\{chapter\}/);
  });

  it('throws when a required value is missing, but optional ones expand to an empty argument', () => {
    const { output: _o, backup: _b, last_error: _l, ...rest } = values;
    expect(() => expandArgv(['{output}'], rest)).toThrow(/\{output\}/);
    expect(expandArgv(['{backup}', '{last_error}'], rest)).toEqual(['', '']);
  });

  it('leaves braces that are not placeholders alone', () => {
    expect(expandArgv(['{"json": 1}', '{}', '{ unit }'], values)).toEqual(['{"json": 1}', '{}', '{ unit }']);
  });
});

describe('describeArgv', () => {
  it('leaves plain words bare and quotes the rest', () => {
    expect(describeArgv(['node', 'a/b.mjs', '--unit', 'ch03'])).toBe('node a/b.mjs --unit ch03');
    expect(describeArgv(['echo', 'two words', "it's", ''])).toBe(`echo 'two words' 'it'\\''s' ''`);
  });

  it('shows control characters escaped, on one line', () => {
    const shown = describeArgv(['echo', 'a\nb', '\u001b[31mred']);
    expect(shown).not.toMatch(/[\n\u001b]/);
    expect(shown).toBe(`echo $'a\\nb' $'\\e[31mred'`);
  });

  it('round-trips through a real shell to the exact arguments', () => {
    const args = ['$(rm -rf /)', "it's", 'a\nb', '`id`', '-n', 'tab\there', 'back\\slash', '', 'ünïcode'];
    const line = describeArgv(['printf', '%s\\0', ...args]);
    const out = execFileSync('bash', ['-c', line], { encoding: 'utf8' });
    expect(out.split('\0').slice(0, -1)).toEqual(args);
  });
});
