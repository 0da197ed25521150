import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { renderKeysDoc } from '../src/app/keys-doc.js';
import { KEYMAP } from '../src/app/keymap.js';
import { COMMAND_NAMES } from '../src/app/command-line.js';
import { FAILURE_CLASS_TABLE } from '../src/pipeline/failure-classes.js';
import { capsMarkdown, withCapsTable } from '../src/run/caps-table.js';

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
    const { parseConfig } = await import('../src/pipeline/config.js');
    const readme = readFileSync('README.md', 'utf8');
    const yaml = /## Agents[\s\S]*?```yaml\n([\s\S]*?)```/.exec(readme)![1];
    const cfg = parseConfig(yaml, 'checkroom.yaml');
    expect(cfg.agents.writer!.adapter).toBe('claude-code');
    expect(cfg.agents.writer!.onInterrupt).toBe('continue');
    expect(cfg.agents.archivist!.command[0]).toBe('node');
    expect(cfg.limits.budget).toBeDefined();
  });
});
