import { afterEach, describe, expect, it } from 'vitest';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { LineRing, LineSplitter, truncationSuffix } from '../src/run/ring-buffer.js';
import { startProcess } from '../src/run/process.js';
import { sanitize, sanitizeLine } from '../src/sanitize.js';
import fc from 'fast-check';
import { tempDir } from './helpers/workspace.js';

// Issue 10 item 5: a run's lines are stored raw and formatted only when read, so of a
// flood only the lines that can be shown are sanitized; and every way to read them still
// returns sanitized, bounded text.

const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

describe('sanitizeLine', () => {
  it('is the full escape for any text, its one-scan shortcut included', () => {
    const special = [
      '\t',
      '\n',
      '\r',
      '\u001b',
      '\u0007',
      '\u0000',
      '\u007f',
      '\u0085',
      '\u009f',
      '\u00a0',
      '\u2028',
      '\u202e',
      '\u2066',
      '\u2069',
      '\u206a',
      'a',
      '漢',
      '✅',
    ];
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.constantFrom(...special), fc.string({ maxLength: 3 }))), (parts) => {
        const text = parts.join('');
        expect(sanitizeLine(text)).toBe(sanitize(text).replace(/\n/g, '\\n'));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('LineRing with raw lines', () => {
  it('formats only the lines it keeps, once each, when they are read', () => {
    let formatted = 0;
    const format = (l: string): string => (formatted++, l.toUpperCase());
    const ring = new LineRing({ maxLines: 100, format });
    const split = new LineSplitter({ format });
    split.feed(Array.from({ length: 10_000 }, (_, i) => `line ${i}\n`).join(''), (raw, dropped) => ring.addRaw(raw, dropped));
    expect(formatted).toBe(0);
    const lines = ring.lines();
    expect(lines).toHaveLength(100);
    expect(lines[0]).toBe('LINE 9900');
    expect(formatted).toBe(100);
    ring.lines();
    expect(formatted).toBe(100);
  });

  it('bounds a raw line when it is read, as an eagerly formatted one', () => {
    const ring = new LineRing({ maxLineChars: 10 });
    const split = new LineSplitter({ maxLineChars: 10 });
    split.feed(`${'\u001b'.repeat(10)}\n${'a'.repeat(25)}\n`, (raw, dropped) => ring.addRaw(raw, dropped));
    expect(ring.lines()).toEqual(['\\e'.repeat(5) + truncationSuffix(10), 'a'.repeat(10) + truncationSuffix(15)]);
  });
});

describe('startProcess: every read of the output is sanitized', () => {
  let dir = '';
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('subscribers, lines(), the unfinished line, the outcome tail and the capped log tail', async () => {
    dir = tempDir('checkroom-lazy-');
    const logPath = join(dir, 'run.log');
    // Title, clipboard, clear screen, CR overwrite and a bell; then a line without newline.
    const evil = String.raw`printf '\033]0;pwned\007t\r\n\033]52;c;eA==\007\n\033[2J\033[Hx\rX\b\n'; for i in 1 2 3 4 5 6 7 8; do printf '\033[31mred %s\033[0m\n' "$i" >&2; done; printf 'pending \033[5m'; sleep 1; printf '\033]0;end\007'`;
    const h = startProcess({
      runId: 'r',
      argv: ['sh', '-c', evil],
      cwd: dir,
      env: {},
      logPath,
      outputPath: null,
      idleTimeoutMs: 20_000,
      timeoutMs: 60_000,
      graceMs: 300,
      logMaxBytes: 16,
    });
    const seen: string[] = [];
    h.onLine((l) => seen.push(l));
    // While it runs: the unfinished line is read through lines() too.
    let during: string[] = [];
    for (let i = 0; i < 200 && !during.some((l) => l.startsWith('pending')); i++) {
      await new Promise((r) => setTimeout(r, 25));
      during = h.lines();
    }
    expect(during.some((l) => l.startsWith('pending'))).toBe(true);
    const out = await h.result;
    const reads = { seen, during, after: h.lines(), tail: out.tail };
    for (const [name, lines] of Object.entries(reads)) {
      expect(lines.length, name).toBeGreaterThan(0);
      for (const l of lines) expect(UNSAFE.test(l), `${name}: ${JSON.stringify(l)}`).toBe(false);
    }
    expect(out.tail).toContain('\\e]0;pwned\\at');
    expect(out.tail).toContain('\\e[31mred 8\\e[0m');
    expect(seen).toContain('\\e[2J\\e[Hx\\rX\\b');
    // The log keeps the raw bytes it had room for; the tail written after the cap is sanitized.
    const log = readFileSync(logPath, 'utf8');
    const capped = log.slice(log.indexOf('(sanitized) follow'));
    expect(capped).toContain('\\e[31mred 1\\e[0m');
    expect(UNSAFE.test(capped.replace(/\n/g, ''))).toBe(false);
  });
});
