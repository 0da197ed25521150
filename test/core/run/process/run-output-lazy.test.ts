import { afterEach, describe, expect, it } from 'vitest';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { LineRing, LineSplitter, truncationSuffix } from '../../../../src/run/process/ring-buffer.js';
import { startProcess } from '../../../../src/run/process/process.js';
import { RunOutput } from '../../../../src/run/process/output.js';
import { sanitize, sanitizeLine } from '../../../../src/text/sanitize.js';
import fc from 'fast-check';
import { tempDir } from '../../../helpers/workspace.js';

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

describe('RunOutput', () => {
  it('formats a line once for the subscriber batch and the ring together (issue 9 item 3)', () => {
    let formatted = 0;
    const out = new RunOutput(100, { format: (l) => (formatted++, l.toUpperCase()) });
    const seen: string[] = [];
    out.subscribe((l) => seen.push(l));
    out.splitters.out.feed(Array.from({ length: 150 }, (_, i) => `line ${i}\n`).join(''), out.raw);
    expect(formatted).toBe(0);
    out.flush();
    expect(seen).toHaveLength(150);
    expect(formatted).toBe(150);
    // The 100 lines still in the ring were formatted by the batch; reading them costs nothing.
    expect(out.lines()).toEqual(seen.slice(-100));
    expect(formatted).toBe(150);
  });

  it('skips most of a burst for subscribers unless told to deliver every line', () => {
    const lines = Array.from({ length: 50 }, (_, i) => `l${i}\n`).join('');
    const skipping = new RunOutput(10);
    const keeping = new RunOutput(10, { skipBursts: false });
    const a: string[] = [];
    const b: string[] = [];
    skipping.subscribe((l) => a.push(l));
    keeping.subscribe((l) => b.push(l));
    skipping.splitters.out.feed(lines, skipping.raw);
    keeping.splitters.out.feed(lines, keeping.raw);
    skipping.flush();
    keeping.flush();
    expect(a).toEqual(['… [40 lines skipped, see the log file]', ...Array.from({ length: 10 }, (_, i) => `l${40 + i}`)]);
    expect(b).toEqual(Array.from({ length: 50 }, (_, i) => `l${i}`));
    expect(keeping.lines()).toEqual(skipping.lines());
  });

  it('a subscriber gets the lines that came before it (a quick agent done before the supervisor subscribed), then each new one, each once', () => {
    const out = new RunOutput(10);
    out.splitters.err.feed("Error: EACCES: permission denied, open 'x'\nsecond\n", out.raw);
    const first: string[] = [];
    out.subscribe((l) => first.push(l));
    expect(first).toEqual(["Error: EACCES: permission denied, open 'x'", 'second']);
    // A line queued for the first subscriber when a second comes: each gets it once.
    out.splitters.out.feed('third\n', out.raw);
    const second: string[] = [];
    out.subscribe((l) => second.push(l));
    out.splitters.out.feed('fourth\n', out.raw);
    out.flush();
    expect(first).toEqual(["Error: EACCES: permission denied, open 'x'", 'second', 'third', 'fourth']);
    expect(second).toEqual(first);
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
