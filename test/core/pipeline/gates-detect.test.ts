import { describe, expect, it } from 'vitest';
import { loadConfig, parseConfig } from '../../../src/pipeline/config/config.js';
import { ConfigError } from '../../../src/pipeline/config/config.js';
import { loadWorkspace } from '../../../src/workspace.js';
import { tempDir, writeFiles } from '../../helpers/workspace.js';

// Issue 8 item 6: a gate-file workspace with no `preset` was read as a book (0 chapters).
// Its layout now chooses the gates preset, and the control room says so.

const ID = '1735123456-abc123';
const gateFiles = {
  [`.claude/context/history/gates/${ID}/00-planner.json`]: JSON.stringify({ valid: true }),
  [`.claude/context/artifacts/plan-${ID}.json`]: JSON.stringify({ steps: [{ step_number: 0, name: 'Plan', agent: 'planner', dependencies: [], status: 'completed' }] }),
};

describe('gate layout detection', () => {
  it('uses the gates preset when checkroom.yaml is missing, and says why', async () => {
    const dir = tempDir();
    writeFiles(dir, gateFiles);
    const s = await loadWorkspace(dir);
    expect(s.preset).toBe('gates');
    expect(s.units).toEqual([ID]);
    expect(s.warnings.map((w) => `${w.source}: ${w.message}`)).toContain(
      'checkroom.yaml: no preset in checkroom.yaml: the gate-file layout (.claude/context/history/gates/) was found, so the gates preset is used — write preset: gates (or preset: book) to choose',
    );
  });

  it('detects it under a checkroom.yaml that names no preset, and never overrides one that does', async () => {
    const dir = tempDir();
    writeFiles(dir, { ...gateFiles, 'checkroom.yaml': 'name: billing\n' });
    expect((await loadConfig(dir)).preset).toBe('gates');
    writeFiles(dir, { 'checkroom.yaml': 'preset: book\n' });
    const c = await loadConfig(dir);
    expect(c.preset).toBe('book');
    expect(c.presetDetected).toBeUndefined();
  });

  it('stays the book without the layout', async () => {
    const c = await loadConfig(tempDir());
    expect(c.preset).toBe('book');
    expect(c.presetDetected).toBeUndefined();
  });
});

describe('language in checkroom.yaml', () => {
  it('accepts en, zh and ja, strictly', () => {
    expect(parseConfig('language: ja\n', 'checkroom.yaml').language).toBe('ja');
    expect(() => parseConfig('language: fr\n', 'checkroom.yaml')).toThrow(ConfigError);
  });
});
