import { describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { renderKeysDoc } from '../../src/ui/keys/keys-doc.js';
import { KEYMAP } from '../../src/ui/keys/keymap.js';
import { COMMAND_NAMES } from '../../src/ui/keys/command-line.js';
import { FAILURE_CLASS_TABLE } from '../../src/pipeline/failure-classes.js';
import { capsMarkdown, withCapsTable } from '../../src/run/policy/caps-table.js';

// Docs that can drift from the code are generated and checked (STYLE.md, issue 9).

describe('docs/keys.md', () => {
  it('is exactly what the key map generates (run `npm run docs` after changing a key)', () => {
    expect(readFileSync('docs/keys.md', 'utf8')).toBe(renderKeysDoc());
  });

  it('lists every command of the key map and every : command name', () => {
    const doc = readFileSync('docs/keys.md', 'utf8');
    for (const c of KEYMAP) expect(doc).toContain(c.description.replace(/\|/g, '\\|'));
    for (const n of COMMAND_NAMES) expect(doc).toContain(`:${n}`);
  });
});

describe('the markdown pages', () => {
  it('close every code fence they open (a stray fence turns the rest of a page into code)', async () => {
    const { readdirSync } = await import('node:fs');
    for (const page of ['README.md', ...readdirSync('docs').filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)]) {
      const lines = readFileSync(page, 'utf8').split('\n');
      const fence = (l: string | undefined): boolean => l !== undefined && /^\s*```/.test(l);
      expect(lines.filter(fence).length % 2, page).toBe(0);
      // An empty block (a fence right after a fence) is a fence too many, even when they pair up.
      expect(lines.findIndex((l, i) => fence(l) && fence(lines[i + 1])), page).toBe(-1);
    }
  });
});

describe('docs/agents.md', () => {
  // Issue 17 item 5: the caps table is generated from the class rows (`npm run docs`); it
  // replaced a sentence of numbers that this test matched one by one.
  it('carries exactly the caps table the class rows generate', () => {
    const doc = readFileSync('docs/agents.md', 'utf8');
    expect(doc).toBe(withCapsTable(doc));
    expect(doc).toContain(capsMarkdown());
  });

  it('the table says the source table\'s attempts: UNKNOWN 2, VERIFICATION_FAILED 3, BROKEN_BUILD 1, CIRCULAR_FIX 0', () => {
    const doc = readFileSync('docs/agents.md', 'utf8');
    for (const [cls, n] of [['UNKNOWN', 2], ['VERIFICATION_FAILED', 3], ['BROKEN_BUILD', 1], ['CIRCULAR_FIX', 0]] as const) {
      expect(doc).toMatch(new RegExp(`\\| ${cls} \\| ${n} \\|`));
    }
    for (const row of FAILURE_CLASS_TABLE) expect(doc).toMatch(new RegExp(`\\| ${row.name} \\| ${row.retry === 'never' ? 0 : row.cap} \\|`));
  });
});

describe("the README's agents example", () => {
  it('is a checkroom.yaml that parses, with a claude-code agent and a command agent', async () => {
    const { parseConfig } = await import('../../src/pipeline/config/config.js');
    const readme = readFileSync('README.md', 'utf8');
    const yaml = /## Agents[\s\S]*?```yaml\n([\s\S]*?)```/.exec(readme)![1];
    const cfg = parseConfig(yaml, 'checkroom.yaml');
    expect(cfg.agents.writer!.adapter).toBe('claude-code');
    expect(cfg.agents.writer!.onInterrupt).toBe('continue');
    expect(cfg.agents.archivist!.command[0]).toBe('node');
    expect(cfg.limits.budget).toBeDefined();
  });
});

// The why lives in the repo: docs/domain.md keeps the seed's nine sections in order, and the
// comments name them by title (test/house/house-comments.test.ts checks every title cited).
describe('docs/domain.md', () => {
  it('has the nine sections, numbered 1..9 in order as the seed documents are', () => {
    const numbers = [...readFileSync('docs/domain.md', 'utf8').matchAll(/^## (\d+)\. /gm)].map((m) => Number(m[1]));
    expect(numbers).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('is linked from the README and docs/architecture.md', () => {
    expect(readFileSync('README.md', 'utf8')).toContain('](docs/domain.md)');
    expect(readFileSync('docs/architecture.md', 'utf8')).toContain('](domain.md)');
  });
});

describe('docs/decisions/', () => {
  it('the index lists every decision page, and every page it lists exists', () => {
    const pages = readdirSync('docs/decisions').filter((f) => f.endsWith('.md') && f !== 'README.md').sort();
    const index = readFileSync('docs/decisions/README.md', 'utf8');
    const linked = [...index.matchAll(/\]\(([^)/]+\.md)\)/g)].map((m) => m[1]!).sort();
    expect(linked).toEqual(pages);
  });

  it('each page says its context, decision and consequences', () => {
    for (const f of readdirSync('docs/decisions').filter((n) => n !== 'README.md')) {
      const text = readFileSync(`docs/decisions/${f}`, 'utf8');
      for (const part of ['**Context.**', '**Decision.**', '**Consequences.**']) expect(text, `${f}: ${part}`).toContain(part);
    }
  });
});

// Issue 19 item 6: the recording. The recorder (scripts/record-demo.mjs, `npm run docs`)
// needs tmux and the built demo, so CI checks what it committed, not a new recording.
describe('the demo recording', () => {
  const frameEvents = (): { t: number; data: string }[] => {
    const [head, ...rest] = readFileSync('docs/demo.cast', 'utf8').trim().split('\n');
    const header = JSON.parse(head!) as { version: number; width: number; height: number };
    expect(header.version).toBe(2);
    expect(Number.isInteger(header.width) && Number.isInteger(header.height)).toBe(true);
    const events = rest.map((l) => JSON.parse(l) as [number, string, string]);
    let last = 0;
    for (const [t, kind, data] of events) {
      expect(typeof t === 'number' && t >= last, 'times are seconds, in order').toBe(true);
      expect(kind).toBe('o');
      expect(typeof data).toBe('string');
      last = t;
    }
    return events.filter(([, , d]) => d !== '').map(([t, , data]) => ({ t, data }));
  };

  it('docs/demo.cast is an asciinema v2 cast: a header line, then [time, "o", data] events', () => {
    expect(frameEvents().length).toBeGreaterThan(5);
  });

  it('docs/demo.svg is well-formed, under 300 KB, and has one frame per frame of the cast', () => {
    const svg = readFileSync('docs/demo.svg', 'utf8');
    expect(Buffer.byteLength(svg)).toBeLessThan(300 * 1024);
    expect(xmlProblem(svg)).toBe(null);
    const frames = frameEvents().length;
    expect(svg.match(/<g class="frame"/g)?.length).toBe(frames);
    expect(svg).toContain(`data-frames="${frames}"`);
    // The animation moves the strip once per frame.
    expect(svg.match(/%\{transform:translateY\(/g)?.length).toBe(frames);
  });

  it('the README shows the SVG, and links the cast, both of which exist', () => {
    const readme = readFileSync('README.md', 'utf8');
    expect(readme).toMatch(/!\[[^\]]+\]\(docs\/demo\.svg\)/);
    expect(readme).toContain('](docs/demo.cast)');
    expect(existsSync('docs/demo.svg') && existsSync('docs/demo.cast')).toBe(true);
    expect(readFileSync('package.json', 'utf8')).toMatch(/"docs": "[^"]*scripts\/record-demo\.mjs/);
  });

  it('the well-formedness check finds a bad SVG (the check can fail)', () => {
    expect(xmlProblem('<svg><g></svg>')).not.toBe(null);
    expect(xmlProblem('<svg><text>a < b</text></svg>')).not.toBe(null);
    expect(xmlProblem('<svg><text x="1">a &amp; b</text></svg>')).toBe(null);
  });
});

/** A small XML well-formedness check (no XML library is installed): tags nest, attributes are quoted, `<` and `&` are escaped in text. */
function xmlProblem(text: string): string | null {
  const stack: string[] = [];
  const token = /<(\/?)([A-Za-z][\w:.-]*)((?:\s+[\w:.-]+="[^"<]*")*)\s*(\/?)>|<!--[\s\S]*?-->|<\?[\s\S]*?\?>|([^<]+)|(<)/g;
  for (const m of text.matchAll(token)) {
    if (m[6]) return `a bare < at ${m.index}`;
    if (m[5] !== undefined) {
      if (/&(?!(?:amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);)/.test(m[5])) return `a bare & at ${m.index}`;
      continue;
    }
    if (!m[2]) continue;
    if (m[1]) {
      if (stack.pop() !== m[2]) return `</${m[2]}> closes nothing open at ${m.index}`;
    } else if (!m[4]) stack.push(m[2]);
  }
  return stack.length ? `<${stack.at(-1)}> is never closed` : null;
}
