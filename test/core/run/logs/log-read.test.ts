import { describe, expect, it } from 'vitest';
import { appendFileSync, closeSync, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { LogIndex } from '../../../../src/run/logs/line-index.js';
import { readableLine } from '../../../../src/run/logs/event.js';
import { errorLine, findLine, findLineWithin, lineMatches } from '../../../../src/run/logs/search.js';
import { compilePattern } from '../../../../src/pipeline/safe-pattern.js';
import { legacyErrorOf } from '../../../../src/run/attempt/failure-message.js';
import { REPO, tempDir } from '../../../helpers/workspace.js';

// Reading one attempt's log (docs/logs.md): bounded windows over a lazily built line index,
// readable events from a real Claude Code stream-json log, search through safe-pattern.ts,
// and the error jump — all on real files.

const STREAM = readFileSync(join(REPO, 'test/fixtures/claude-stream-write.jsonl'), 'utf8').trimEnd().split('\n');

const logWith = (lines: string[], end = '\n'): string => {
  const p = join(tempDir('log-read-'), 'a.log');
  writeFileSync(p, lines.join('\n') + end);
  return p;
};

describe('LogIndex', () => {
  it('reads a window without indexing the rest of a large log', () => {
    const p = join(tempDir('log-big-'), 'big.log');
    const fd = openSync(p, 'w');
    const block = Buffer.from(Array.from({ length: 10_000 }, (_, i) => `line ${i} ${'x'.repeat(90)}`).join('\n') + '\n');
    for (let i = 0; i < 40; i++) writeSync(fd, block); // ~38 MB, 400k lines
    closeSync(fd);
    const ix = new LogIndex(p);
    expect(ix.read(0, 3).map((l) => l.slice(0, 7))).toEqual(['line 0 ', 'line 1 ', 'line 2 ']);
    // Only the first chunk was looked at: the index is far from complete.
    expect(ix.complete).toBe(false);
    expect(ix.knownLines).toBeLessThan(20_000);
    expect(ix.ensureAll()).toBe(400_000);
    expect(ix.read(399_999, 5)).toHaveLength(1);
    expect(ix.read(399_999, 1)[0]).toMatch(/^line 9999 x/);
  });

  it('counts a last line without a newline, and sees appended lines after refresh', () => {
    const p = logWith(['a', 'b', 'c'], '');
    const ix = new LogIndex(p);
    expect(ix.ensureAll()).toBe(3);
    expect(ix.read(0, 10)).toEqual(['a', 'b', 'c']);
    appendFileSync(p, 'c2\nd\n');
    expect(ix.refresh()).toBe(true);
    expect(ix.ensureAll()).toBe(4);
    expect(ix.read(2, 10)).toEqual(['cc2', 'd']);
  });

  it('cuts a line longer than the read cap and says how much is left', () => {
    const p = logWith(['short', 'y'.repeat(200_000), 'after']);
    const ix = new LogIndex(p);
    const [s, long, after] = ix.read(0, 3);
    expect(s).toBe('short');
    expect(long!.length).toBeLessThan(70_000);
    expect(long).toMatch(/more bytes in the log\]$/);
    expect(after).toBe('after');
  });

  it('starts again when the log was truncated under it', () => {
    const p = logWith(['one', 'two', 'three']);
    const ix = new LogIndex(p);
    ix.ensureAll();
    writeFileSync(p, 'new\n');
    ix.refresh();
    expect(ix.ensureAll()).toBe(1);
    expect(ix.read(0, 5)).toEqual(['new']);
  });
});

describe('readableLine', () => {
  it('renders a real Claude Code stream as events, one line each', () => {
    const ev = STREAM.map(readableLine);
    expect(ev[0]).toMatchObject({ kind: 'system' });
    expect(ev[0]!.text).toMatch(/^session 5b7851a7-.* · model /);
    expect(ev[1]).toEqual({ kind: 'assistant', text: 'assistant: Writing the file.' });
    expect(ev[2]).toMatchObject({ kind: 'tool', text: '→ Write /tmp/cx-JmBCs2/out.md' });
    expect(ev[3]!.kind).toBe('tool-result');
    expect(ev[3]!.text).toMatch(/^← tool result: File created successfully/);
    expect(ev[5]!.kind).toBe('result');
    expect(ev[5]!.text).toMatch(/\$0\.0216 · 2400 in \/ 600 out/);
    for (const e of ev) expect(e.text).not.toMatch(/^\{/);
  });

  it('an API error result reads as an error with its status', () => {
    const line = JSON.stringify({ type: 'result', subtype: 'success', is_error: true, api_error_status: 429, result: 'API Error: Request rejected (429) · rate limited', total_cost_usd: 0, session_id: 's' });
    expect(readableLine(line)).toEqual({ kind: 'error', text: 'result API error 429: API Error: Request rejected (429) · rate limited · $0.0000' });
  });

  it('a JSON-lines agent shows its type and message; plain lines stay, escaped', () => {
    expect(readableLine('{"type":"progress","message":"step 2 of 5"}')).toEqual({ kind: 'text', text: 'progress: step 2 of 5' });
    expect(readableLine('{"level":"error","msg":"quota exceeded"}').kind).toBe('error');
    const evil = readableLine('hello \u001b]52;c;ZXZpbA==\u0007 \u001b[2J world');
    expect(evil.text).not.toMatch(/\u001b|\u0007/);
    expect(evil.text).toContain('\\e]52');
    // JSON text holding escapes is decoded by JSON.parse: the readable form must escape them again.
    expect(readableLine(JSON.stringify({ type: 'assistant', message: { content: [{ type: 'text', text: 'x\u001b[31my' }] } })).text).toBe('assistant: x\\e[31my');
  });
});

describe('search and the error jump', () => {
  it('n/N: next and previous match through safe-pattern, on raw or readable text', () => {
    const p = logWith(['alpha', 'beta 429', 'gamma', 'delta 429', 'eps']);
    const ix = new LogIndex(p);
    const re = compilePattern('4\\d9');
    const test = (raw: string) => lineMatches(re, raw);
    expect(findLine(ix, test, 0, 1)).toBe(1);
    expect(findLine(ix, test, 2, 1)).toBe(3);
    expect(findLine(ix, test, 4, 1)).toBe(null);
    expect(findLine(ix, test, 2, -1)).toBe(1);
    // readable text: the tool name appears only as "→ Write …" in a JSON line's fields
    const c = new LogIndex(logWith(STREAM));
    expect(findLine(c, (raw) => lineMatches(compilePattern('^→ Write'), raw), 0, 1)).toBe(2);
  });

  it('a bounded search says where it stopped, and goes on from there', () => {
    const ix = new LogIndex(logWith([...Array.from({ length: 100 }, (_, i) => `line ${i}`), 'needle']));
    const test = (raw: string) => raw === 'needle';
    expect(findLineWithin(ix, test, 0, 1, 30)).toEqual({ line: null, stopped: 30 });
    expect(findLineWithin(ix, test, 90, 1, 30)).toEqual({ line: 100, stopped: null });
    expect(findLineWithin(ix, () => false, 90, 1, 30)).toEqual({ line: null, stopped: null });
    expect(findLineWithin(ix, test, 100, -1, 30)).toEqual({ line: 100, stopped: null });
    expect(findLineWithin(ix, (raw) => raw === 'line 0', 99, -1, 30)).toEqual({ line: null, stopped: 69 });
  });

  it('jumps to the line the classifier quoted, else to the last error-looking line', () => {
    const p = logWith(['start', 'Error: first', 'working', 'fatal: disk full', 'cleanup done']);
    const ix = new LogIndex(p);
    expect(errorLine(ix, 'Error: first (exit 1)')).toBe(1);
    expect(errorLine(ix, '')).toBe(3);
    const c = new LogIndex(logWith([...STREAM.slice(0, 4), JSON.stringify({ type: 'result', is_error: true, api_error_status: 529, result: 'Overloaded' }), '']));
    expect(errorLine(c, 'stopped by the idle watchdog')).toBe(4);
  });
});

describe('the last error of an old journal', () => {
  it('a stream-json tail reads as its event, not a raw JSON line', () => {
    const tail = [STREAM[1]!, JSON.stringify({ type: 'result', is_error: true, api_error_status: 429, result: 'usage limit reached', session_id: 's' })];
    const e = legacyErrorOf(tail);
    expect(e).not.toMatch(/^\{/);
    expect(e).toContain('API error 429: usage limit reached');
  });
});
