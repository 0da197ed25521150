import { describe, expect, it } from 'vitest';
import { castToSvg, parseCast, screenOf } from '../../scripts/cast-to-svg.mjs';

// Issue 19 item 6: the README's recording is rendered by our own small renderer (no SVG
// library is installed); these pin what it must get right on a tiny cast.

const cast = (...frames: [number, string][]): string =>
  [JSON.stringify({ version: 2, width: 10, height: 2 }), ...frames.map(([t, d]) => JSON.stringify([t, 'o', d]))].join('\n');

describe('cast-to-svg', () => {
  it('reads SGR colours, reverse video and wide characters into cells', () => {
    const rows = screenOf('\x1b[H\x1b[31mab\x1b[0m\r\n\x1b[7m书x\x1b[0m', 10, 2);
    expect(rows[0].map((c) => [c.ch, c.fg])).toEqual([
      ['a', '#cd3131'],
      ['b', '#cd3131'],
    ]);
    expect(rows[1][0]).toMatchObject({ ch: '书', w: 2, x: 0 });
    expect(rows[1][1]).toMatchObject({ ch: 'x', x: 2 });
    expect(rows[1][1].bg).toBeTruthy();
  });

  it('one frame group per drawing event, each held until the next event', () => {
    const text = cast([0, '\x1b[Hone'], [1.5, '\x1b[Htwo'], [4, '']);
    expect(parseCast(text).frames.map((f) => f.hold)).toEqual([1.5, 2.5]);
    const svg = castToSvg(text);
    expect(svg.match(/<g class="frame"/g)).toHaveLength(2);
    expect(svg).toContain('animation:play 4.00s');
  });

  it('escapes text for XML', () => {
    const svg = castToSvg(cast([0, '\x1b[H<a&b>'], [1, '']));
    expect(svg).toContain('&lt;a&amp;b&gt;');
    expect(svg).not.toContain('<a&b>');
  });

  it('refuses what is not an asciinema v2 cast', () => {
    expect(() => parseCast('{"version":1}\n')).toThrow(/asciinema v2/);
  });
});
