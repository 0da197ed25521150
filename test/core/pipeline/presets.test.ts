import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { ConfigError, loadConfig, parseConfig } from '../../../src/pipeline/config/config.js';
import { PRESETS, presetOf, registerPreset } from '../../../src/pipeline/presets/index.js';
import { loadWorkspace } from '../../../src/workspace.js';
import { statusCommand } from '../../../src/cli/commands/core-commands.js';
import { ESSAY } from '../../fixtures/presets/essay.js';
import { marked, prose, tempDir, writeFiles } from '../../helpers/workspace.js';

// Issue 9 item 1: presets are values in a registry. A third family is one file
// (test/fixtures/presets/essay.ts) plus one registration, and `preset:` also takes the path of
// a preset file, validated as strictly as checkroom.yaml.

registerPreset(ESSAY);

const essayFiles = {
  'outlines/e01-outline.md': marked(prose(40), 'OUTLINE_COMPLETE'),
  'essays/e01.md': marked(prose(60), 'ESSAY_COMPLETE'),
  'outlines/e02-outline.md': marked(prose(40), 'OUTLINE_COMPLETE'),
  'essays/e02.md': prose(300), // written, never marked: a half-product
  'outlines/e03-outline.md': marked(prose(40), 'OUTLINE_COMPLETE'),
};

const statusOf = async (dir: string): Promise<Record<string, unknown> & { pipeline: string; counts: Record<string, number>; next: { unit: string; step: string; action: string }[] }> => {
  let text = '';
  await statusCommand([dir], true, { paint: (_t, x) => x, ascii: true, width: 100 }, { write: (x) => void (text += x) });
  return JSON.parse(text);
};

describe('the preset registry', () => {
  it('holds the built-in presets and the registered one under their names', () => {
    expect([...PRESETS.keys()]).toEqual(['book', 'gates', 'essay']);
    for (const [name, p] of PRESETS) expect(p.name).toBe(name);
    expect(presetOf(undefined).name).toBe('book');
    expect(() => registerPreset(ESSAY)).toThrow(/already registered/);
  });
});

describe('a third preset: one file plus one registry line', () => {
  it('reads a workspace that names it: cells, plan and status come from its pipeline', async () => {
    const dir = tempDir();
    writeFiles(dir, { 'checkroom.yaml': 'preset: essay\n', ...essayFiles });
    const ws = await loadWorkspace(dir);
    expect(ws.preset).toBe('essay');
    expect(ws.units).toEqual(['e01', 'e02', 'e03']);
    expect(ws.cells.map((c) => `${c.unit}/${c.step}:${c.status}`)).toEqual([
      'e01/outline:done',
      'e01/draft:done',
      'e02/outline:done',
      'e02/draft:partial',
      'e03/outline:done',
      'e03/draft:not_started',
    ]);
    expect(ws.partials.map((p) => p.path)).toEqual(['essays/e02.md']);
    const status = await statusOf(dir);
    expect(status.pipeline).toBe('essay');
    expect(status.counts).toMatchObject({ done: 4, partial: 1 });
    expect(status.next.map((n) => `${n.unit}/${n.step}`)).toEqual(['e02/draft', 'e03/draft']);
  });

  it('is chosen by its layout when checkroom.yaml names no preset, and says so', async () => {
    const dir = tempDir();
    writeFiles(dir, { '.essay/notes.md': 'x', ...essayFiles });
    const cfg = await loadConfig(dir);
    expect(cfg.preset).toBe('essay');
    const ws = await loadWorkspace(dir);
    expect(ws.units).toEqual(['e01', 'e02', 'e03']);
    expect(ws.warnings.map((w) => w.message)).toContain(ESSAY.layout!.notice);
  });

  it('reads no todo table when the preset has none', async () => {
    const dir = tempDir();
    // A file at the conventional todo-database path would be read as level 2 by the book.
    writeFiles(dir, { 'checkroom.yaml': 'preset: essay\n', '.checkroom/todos.db': 'not a database', ...essayFiles });
    const ws = await loadWorkspace(dir);
    expect(ws.todos ?? null).toBeNull();
  });

  it('refuses a name that is neither registered nor a preset file, at its place in the file', () => {
    let err: unknown;
    try {
      parseConfig('name: x\npreset: novel\n', '/w/checkroom.yaml');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).message).toBe('/w/checkroom.yaml:2:9: unknown preset "novel" (expected one of: book, gates, essay, or the path of a preset .yaml file)');
  });
});

const PRESET_FILE = `name: letters
phases:
  - id: 1
    name: Letters
steps:
  - id: notes
    path: notes/{unit}.md
    marker: NOTES_COMPLETE
    phase: 1
    min_chars: 10
  - id: letter
    path: letters/{unit}.md
    marker: LETTER_COMPLETE
    depends_on: [notes]
    phase: 1
    min_chars: 10
units:
  pattern: 'l\\d{2}'
`;

describe('a preset file', () => {
  it('defines the pipeline checkroom.yaml merges into', async () => {
    const dir = tempDir();
    writeFiles(dir, {
      'presets/letters.yaml': PRESET_FILE,
      'checkroom.yaml': 'preset: presets/letters.yaml\nsteps:\n  - id: letter\n    label: The letter\n',
      'notes/l01.md': marked(prose(30), 'NOTES_COMPLETE'),
      'notes/l02.md': marked(prose(30), 'NOTES_COMPLETE'),
      'letters/l01.md': marked(prose(30), 'LETTER_COMPLETE'),
    });
    const cfg = await loadConfig(dir);
    expect(cfg.preset).toBe('presets/letters.yaml');
    expect(cfg.pipeline.name).toBe('letters');
    expect(cfg.pipeline.steps.map((s) => [s.id, s.label, s.dependsOn])).toEqual([
      ['notes', 'notes', []],
      ['letter', 'The letter', ['notes']],
    ]);
    const ws = await loadWorkspace(dir);
    expect(ws.cells.map((c) => `${c.unit}/${c.step}:${c.status}`)).toEqual(['l01/notes:done', 'l01/letter:done', 'l02/notes:done', 'l02/letter:not_started']);
    expect(ws.next.map((n) => `${n.unit}/${n.step}:${n.action}`)).toEqual(['l02/letter:run']);
  });

  it('is validated strictly: an error points at the line and column in the preset file', () => {
    const dir = tempDir();
    writeFiles(dir, { 'p.yaml': PRESET_FILE.replace('    marker: LETTER_COMPLETE\n', '    markr: LETTER_COMPLETE\n') });
    const cfgFile = join(dir, 'checkroom.yaml');
    expect(() => parseConfig('preset: p.yaml\n', cfgFile)).toThrow(`${join(dir, 'p.yaml')}:13:5: unknown key "markr" in steps[1]`);
    writeFiles(dir, { 'q.yaml': PRESET_FILE.replace('    path: letters/{unit}.md\n', '') });
    expect(() => parseConfig('preset: q.yaml\n', cfgFile)).toThrow(`${join(dir, 'q.yaml')}:11:5: missing key "path" in steps[1]`);
    writeFiles(dir, { 'r.yaml': PRESET_FILE.replace('depends_on: [notes]', 'depends_on: [nope]') });
    expect(() => parseConfig('preset: r.yaml\n', cfgFile)).toThrow(`${join(dir, 'r.yaml')}:14:18: step "letter" depends on unknown step "nope"`);
    expect(() => parseConfig('replace: false\npreset: gone.yaml\n', cfgFile)).toThrow(`${cfgFile}:2:9: the preset file "gone.yaml" does not exist`);
  });
});

describe('no preset is tested by name outside its own files', () => {
  it('has no === "gates" / === "book" branch in src, hooks or components', async () => {
    const { readdirSync, readFileSync } = await import('node:fs');
    const { REPO } = await import('../../helpers/workspace.js');
    // The gate-file domain (src/gates/) and the presets' own files may name themselves.
    const own = /^src\/(gates\/|pipeline\/presets\/|pipeline\/(book|gates)-preset\.ts$)/;
    const hits: string[] = [];
    for (const top of ['src', 'hooks', 'components']) {
      for (const rel of readdirSync(join(REPO, top), { recursive: true, encoding: 'utf8' })) {
        const path = `${top}/${rel}`;
        if (!/\.tsx?$/.test(path) || own.test(path)) continue;
        const text = readFileSync(join(REPO, path), 'utf8');
        if (/[!=]==\s*'(gates|book)'|'(gates|book)'\s*[!=]==/.test(text)) hits.push(path);
      }
    }
    expect(hits).toEqual([]);
  });
});
