import { describe, expect, it } from 'vitest';
import { MAX_ANSWER, redoAskOf, redriveAskOf, requestBytes } from '../../../src/socket/acts.js';
import { MAX_REQUEST, parseRequest } from '../../../src/socket/wire.js';

// The bodies of `redrive` and `redo` (docs/redrive.md, docs/redo.md, From another terminal):
// a peer's JSON is untrusted, so each field is checked for its type and nothing else passes.

const line = (v: unknown): string => JSON.stringify(v);

describe('redrive body', () => {
  it('takes the three kinds with exactly their fields', () => {
    expect(redriveAskOf({ kind: 'apply', text: 'class=INFRA', by: 'u via checkroom redrive' })).toEqual({ kind: 'apply', text: 'class=INFRA', by: 'u via checkroom redrive' });
    expect(redriveAskOf({ kind: 'undo', which: null, by: 'u' })).toEqual({ kind: 'undo', which: null, by: 'u' });
    expect(redriveAskOf({ kind: 'undo', which: 'rl-0200', by: 'u' })).toEqual({ kind: 'undo', which: 'rl-0200', by: 'u' });
    // Fields a kind does not take are dropped, not passed on.
    expect(redriveAskOf({ kind: 'drain', by: 'u', text: 'x', cells: [{ unit: 'a' }] })).toEqual({ kind: 'drain', by: 'u' });
  });

  it('refuses wrong types, unknown kinds, an empty filter and a missing asker', () => {
    for (const bad of [
      null,
      'apply',
      [],
      { kind: 'apply', by: 'u' },
      { kind: 'apply', text: 3, by: 'u' },
      { kind: 'apply', text: '   ', by: 'u' },
      { kind: 'apply', text: 'class=X' },
      { kind: 'apply', text: 'class=X', by: 7 },
      { kind: 'undo', by: 'u' },
      { kind: 'undo', which: '', by: 'u' },
      { kind: 'undo', which: ['a'], by: 'u' },
      { kind: 'relaunch', text: 'x', by: 'u' },
      { kind: { toString: 'apply' }, text: 'x', by: 'u' },
    ])
      expect(redriveAskOf(bad), JSON.stringify(bad)).toBeNull();
  });
});

describe('redo body', () => {
  it('takes a cell and the fork or nulls', () => {
    expect(redoAskOf({ unit: 'ch03', step: 'draft', agent: null, prompt: null, by: 'u' })).toEqual({ unit: 'ch03', step: 'draft', agent: null, prompt: null, by: 'u' });
    expect(redoAskOf({ unit: 'ch03', step: 'draft', agent: 'writer', prompt: 'p.md', by: 'u', extra: 1 })).toEqual({ unit: 'ch03', step: 'draft', agent: 'writer', prompt: 'p.md', by: 'u' });
  });

  it('refuses a missing or empty cell, a wrong-typed fork, an absent fork field', () => {
    const ok = { unit: 'ch03', step: 'draft', agent: null, prompt: null, by: 'u' };
    for (const bad of [
      { ...ok, unit: '' },
      { ...ok, step: 5 },
      { ...ok, agent: 1 },
      { ...ok, prompt: '' },
      { ...ok, prompt: { path: 'x' } },
      { ...ok, by: null },
      { unit: 'ch03', step: 'draft', by: 'u' },
      'ch03/draft',
    ])
      expect(redoAskOf(bad), JSON.stringify(bad)).toBeNull();
  });
});

describe('the request line', () => {
  it('parses redrive and redo with their bodies; a bad body is a bad request, not an op without one', () => {
    expect(parseRequest(line({ token: 't', op: 'redrive', redrive: { kind: 'drain', by: 'u' } }))).toEqual({ token: 't', op: 'redrive', redrive: { kind: 'drain', by: 'u' } });
    expect(parseRequest(line({ token: 't', op: 'redo', redo: { unit: 'a', step: 'b', agent: null, prompt: null, by: 'u' } }))).toMatchObject({ op: 'redo', redo: { unit: 'a', step: 'b' } });
    expect(parseRequest(line({ token: 't', op: 'redrive' }))).toBeNull();
    expect(parseRequest(line({ token: 't', op: 'redo', redo: { unit: 'a' } }))).toBeNull();
    // A body under another op's name is not read.
    expect(parseRequest(line({ token: 't', op: 'redo', redrive: { kind: 'drain', by: 'u' } }))).toBeNull();
    expect(parseRequest(line({ token: 't', op: 'status', redo: { unit: 'a' } }))).toEqual({ token: 't', op: 'status' });
  });

  it('measures a request as the client sends it: a filter that does not fit is known before it is sent', () => {
    const small = requestBytes('redrive', { redrive: { kind: 'apply', text: 'class=INFRA', by: 'u' } });
    expect(small).toBeLessThan(200);
    const text = `unit=${'x'.repeat(MAX_REQUEST)}`;
    expect(requestBytes('redrive', { redrive: { kind: 'apply', text, by: 'u' } })).toBeGreaterThan(MAX_REQUEST);
    // Escaped as the client escapes it: a control character costs its six bytes.
    expect(requestBytes('redo', { redo: { prompt: '\u009b' } }) - requestBytes('redo', { redo: { prompt: 'a' } })).toBe(5);
    expect(MAX_ANSWER).toBeGreaterThan(MAX_REQUEST);
  });
});
