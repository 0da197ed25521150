// An asciinema v2 cast of whole-screen frames → one animated SVG (issue 19 item 6). No SVG
// library is installed and the cast is ours (scripts/record-demo.mjs: every event clears the
// screen and redraws it), so this is a small renderer: each frame is a grid of cells with SGR
// colours; the frames are stacked in one column and a CSS keyframes animation moves the column
// up one frame at a time, holding each for its time in the cast.
import stringWidth from 'string-width';

const CELL_W = 8.4;
const CELL_H = 17;
const FONT = 14;
const BG = '#1e1e1e';
const FG = '#d4d4d4';
const BASE = ['#000000', '#cd3131', '#0dbc79', '#e5e510', '#2472c8', '#bc3fbc', '#11a8cd', '#e5e5e5', '#666666', '#f14c4c', '#23d18b', '#f5f543', '#3b8eea', '#d670d6', '#29b8db', '#ffffff'];

const hex = (n) => n.toString(16).padStart(2, '0');
function colour256(n) {
  if (n < 16) return BASE[n];
  if (n >= 232) {
    const v = 8 + (n - 232) * 10;
    return `#${hex(v)}${hex(v)}${hex(v)}`;
  }
  const i = n - 16;
  const level = (c) => (c === 0 ? 0 : 55 + c * 40);
  return `#${hex(level(Math.floor(i / 36)))}${hex(level(Math.floor(i / 6) % 6))}${hex(level(i % 6))}`;
}

/** Applies one SGR parameter list to a pen. */
function sgr(pen, params) {
  const p = params === '' ? [0] : params.split(/[;:]/).map(Number);
  for (let i = 0; i < p.length; i++) {
    const n = p[i];
    if (n === 0) Object.assign(pen, { fg: null, bg: null, bold: false, dim: false, inverse: false, underline: false });
    else if (n === 1) pen.bold = true;
    else if (n === 2) pen.dim = true;
    else if (n === 4) pen.underline = true;
    else if (n === 7) pen.inverse = true;
    else if (n === 22) Object.assign(pen, { bold: false, dim: false });
    else if (n === 24) pen.underline = false;
    else if (n === 27) pen.inverse = false;
    else if (n >= 30 && n <= 37) pen.fg = BASE[n - 30];
    else if (n >= 90 && n <= 97) pen.fg = BASE[n - 90 + 8];
    else if (n >= 40 && n <= 47) pen.bg = BASE[n - 40];
    else if (n >= 100 && n <= 107) pen.bg = BASE[n - 100 + 8];
    else if (n === 39) pen.fg = null;
    else if (n === 49) pen.bg = null;
    else if (n === 38 || n === 48) {
      const key = n === 38 ? 'fg' : 'bg';
      if (p[i + 1] === 5) {
        pen[key] = colour256(p[i + 2] ?? 0);
        i += 2;
      } else if (p[i + 1] === 2) {
        pen[key] = `#${hex(p[i + 2] ?? 0)}${hex(p[i + 3] ?? 0)}${hex(p[i + 4] ?? 0)}`;
        i += 4;
      }
    }
  }
}

/** One frame's data → rows of cells `{ ch, w, fg, bg, bold, underline }` (only what the frame draws). */
export function screenOf(data, cols, rows) {
  const grid = Array.from({ length: rows }, () => []);
  const pen = { fg: null, bg: null, bold: false, dim: false, inverse: false, underline: false };
  let x = 0;
  let y = 0;
  // eslint-disable-next-line no-control-regex
  const tokens = data.match(/\x1b\[[0-9;:?]*[A-Za-z]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b.|\r|\n|[^\x1b\r\n]/gsu) ?? [];
  for (const t of tokens) {
    if (t === '\r') x = 0;
    else if (t === '\n') y++;
    else if (t.startsWith('\x1b[')) {
      const end = t.at(-1);
      if (end === 'm') sgr(pen, t.slice(2, -1));
      else if (end === 'H') [x, y] = [0, 0];
    } else if (t.startsWith('\x1b')) continue;
    else if (y < rows) {
      const w = stringWidth(t);
      if (w === 0 || x + w > cols) continue;
      const [fg, bg] = pen.inverse ? [pen.bg ?? BG, pen.fg ?? FG] : [pen.fg, pen.bg];
      grid[y].push({ x, ch: t, w, fg: fg ?? (pen.dim ? '#8a8a8a' : null), bg, bold: pen.bold, underline: pen.underline });
      x += w;
    }
  }
  return grid;
}

const esc = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** A row as SVG: background rects, then runs of same-styled narrow cells as one tspan each. */
function rowSvg(cells, y) {
  const rects = [];
  const spans = [];
  let run = null;
  const flush = () => {
    if (!run) return;
    if (run.text.trim() !== '') {
      const cls = [run.bold ? 'b' : '', run.underline ? 'u' : ''].filter(Boolean).join(' ');
      const lead = run.text.length - run.text.trimStart().length;
      spans.push(`<tspan x="${((run.x + lead) * CELL_W).toFixed(1)}"${run.fg ? ` fill="${run.fg}"` : ''}${cls ? ` class="${cls}"` : ''}>${esc(run.text.trim())}</tspan>`);
    }
    run = null;
  };
  for (const c of cells) {
    if (c.bg) rects.push(`<rect x="${(c.x * CELL_W).toFixed(1)}" y="${y}" width="${(c.w * CELL_W).toFixed(1)}" height="${CELL_H}" fill="${c.bg}"/>`);
    // A wide character gets its own x: the font's advance need not be two cells.
    const same = run && c.w === 1 && run.wide === false && run.fg === c.fg && run.bold === c.bold && run.underline === c.underline && run.x + run.text.length === c.x;
    if (same) run.text += c.ch;
    else {
      flush();
      run = { x: c.x, text: c.ch, fg: c.fg, bold: c.bold, underline: c.underline, wide: c.w !== 1 };
    }
  }
  flush();
  const merged = [];
  for (const r of rects) {
    const prev = merged.at(-1);
    const m = /x="([\d.]+)" y="(\d+)" width="([\d.]+)" height="\d+" fill="([^"]+)"/.exec(r);
    const pm = prev && /x="([\d.]+)" y="(\d+)" width="([\d.]+)" height="\d+" fill="([^"]+)"/.exec(prev);
    if (pm && pm[4] === m[4] && Math.abs(Number(pm[1]) + Number(pm[3]) - Number(m[1])) < 0.05) {
      merged[merged.length - 1] = `<rect x="${pm[1]}" y="${y}" width="${(Number(pm[3]) + Number(m[3])).toFixed(1)}" height="${CELL_H}" fill="${m[4]}"/>`;
    } else merged.push(r);
  }
  const text = spans.length ? `<text xml:space="preserve" y="${y + CELL_H - 4}">${spans.join('')}</text>` : '';
  return merged.join('') + text;
}

/** Parses a cast: its header and its frames (events that draw), each with how long it shows. */
export function parseCast(text) {
  const [head, ...rest] = text.trim().split('\n');
  const header = JSON.parse(head);
  if (header.version !== 2 || !Number.isInteger(header.width) || !Number.isInteger(header.height)) throw new Error('not an asciinema v2 cast (the header needs version 2, width and height)');
  const events = rest.map((l) => JSON.parse(l));
  const frames = [];
  events.forEach(([t, kind, data], i) => {
    if (kind !== 'o' || data === '') return;
    const next = events[i + 1]?.[0] ?? t + 2;
    frames.push({ t, hold: Math.max(0.1, next - t), data });
  });
  return { header, frames };
}

export function castToSvg(text) {
  const { header, frames } = parseCast(text);
  const w = Math.ceil(header.width * CELL_W);
  const h = header.height * CELL_H;
  const total = frames.reduce((s, f) => s + f.hold, 0);
  const keys = [];
  let at = 0;
  frames.forEach((f, i) => {
    keys.push(`${((at / total) * 100).toFixed(3)}%{transform:translateY(${-i * h}px)}`);
    at += f.hold;
  });
  const groups = frames.map((f, i) => {
    const rows = screenOf(f.data, header.width, header.height);
    return `<g class="frame" transform="translate(0,${i * h})">${rows.map((cells, r) => rowSvg(cells, r * CELL_H)).join('')}</g>`;
  });
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w + 20}" height="${h + 20}" viewBox="0 0 ${w + 20} ${h + 20}" data-frames="${frames.length}">`,
    `<title>${esc(header.title ?? 'terminal recording')}</title>`,
    `<style>text{font-family:"DejaVu Sans Mono",Menlo,Consolas,monospace;font-size:${FONT}px;fill:${FG};white-space:pre}.b{font-weight:bold}.u{text-decoration:underline}`,
    `#strip{animation:play ${total.toFixed(2)}s steps(1,end) infinite}@keyframes play{${keys.join('')}}</style>`,
    `<rect width="100%" height="100%" rx="6" fill="${BG}"/>`,
    `<svg x="10" y="10" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}"><g id="strip">${groups.join('')}</g></svg>`,
    '</svg>',
    '',
  ].join('\n');
}
