import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { REPO, tempDir } from '../../helpers/workspace.js';

// `checkroom explain caps` (issue 17 item 5), through the built binary: the same rows the
// policy counts with, the configured caps applied.

const BIN = join(REPO, 'dist/bundle/checkroom.js');
const run = (args: string[]) => spawnSync('node', [BIN, ...args], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' }, input: '' });

describe('checkroom explain caps', () => {
  it('prints attempts in all per class, as the source table counts them, and what happens at the cap', () => {
    const root = tempDir('checkroom-explain-');
    const r = run(['explain', 'caps', root]);
    expect(r.status).toBe(0);
    const row = (cls: string) => r.stdout.split('\n').find((l) => l.startsWith(`${cls} `))!.split(/\s{2,}/);
    expect(row('UNKNOWN')).toEqual(['UNKNOWN', '2', 'with the error', 'escalate']);
    expect(row('VERIFICATION_FAILED')).toEqual(['VERIFICATION_FAILED', '3', 'with the error', 'skip the cell and escalate']);
    expect(row('BROKEN_BUILD')).toEqual(['BROKEN_BUILD', '1', 'no', 'roll back and escalate']);
    expect(row('CIRCULAR_FIX')).toEqual(['CIRCULAR_FIX', '0', 'no', 'skip at once and escalate']);
    expect(r.stdout).toContain('limits.caps');
  });

  it('shows a configured cap in force', () => {
    const root = tempDir('checkroom-explain-');
    writeFileSync(join(root, 'checkroom.yaml'), 'preset: book\nlimits:\n  caps: { UNKNOWN: 4 }\n');
    const r = run(['explain', 'caps', root]);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^UNKNOWN\s+4\s/m);
  });

  it('an unknown topic is a usage error that names the topics', () => {
    const r = run(['explain', 'budgets']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('topics: caps');
  });
});
