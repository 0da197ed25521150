import { describe, expect, it } from 'vitest';
import { LineRing, LineSplitter, truncationSuffix } from '../../../../src/run/process/ring-buffer.js';

describe('LineRing', () => {
  it('splits chunks into lines across chunk boundaries', () => {
    const ring = new LineRing();
    expect(ring.push('hel')).toEqual([]);
    expect(ring.push('lo\nwor')).toEqual(['hello']);
    expect(ring.push('ld\n\nx')).toEqual(['world', '']);
    expect(ring.lines()).toEqual(['hello', 'world', '', 'x']);
    expect(ring.end()).toBe('x');
    expect(ring.lines()).toEqual(['hello', 'world', '', 'x']);
  });

  it('keeps only the last N lines', () => {
    const ring = new LineRing({ maxLines: 3 });
    ring.push(Array.from({ length: 10 }, (_, i) => `l${i}\n`).join(''));
    expect(ring.lines()).toEqual(['l7', 'l8', 'l9']);
    expect(ring.size).toBe(3);
  });

  it('truncates a long line and says how much was dropped', () => {
    const ring = new LineRing({ maxLineChars: 10 });
    ring.push('a'.repeat(25) + '\nshort\n');
    expect(ring.lines()).toEqual(['a'.repeat(10) + truncationSuffix(15), 'short']);
  });

  it('holds an endless line without a newline bounded, counting the rest', () => {
    const ring = new LineRing({ maxLineChars: 100 });
    const chunk = 'z'.repeat(64 * 1024);
    for (let i = 0; i < 80; i++) ring.push(chunk); // 5 MiB, no newline
    const [pending] = ring.lines();
    expect(pending).toBe('z'.repeat(100) + truncationSuffix(80 * 64 * 1024 - 100));
    expect(ring.end()).toBe(pending);
  });

  it('sanitizes terminal control sequences and drops CR of CRLF', () => {
    const ring = new LineRing();
    ring.push('\u001b]0;pwned\u0007title\r\nok\r\n');
    expect(ring.lines()).toEqual(['\\e]0;pwned\\atitle', 'ok']);
    expect(ring.lines().join('')).not.toMatch(/[\u001b\u0007\r]/);
  });

  it('bounds a line again when escaping makes it longer', () => {
    const split = new LineSplitter({ maxLineChars: 10 });
    const [line] = split.push('\u001b'.repeat(10) + '\n');
    expect(line).toBe('\\e'.repeat(5) + truncationSuffix(10));
  });
});
