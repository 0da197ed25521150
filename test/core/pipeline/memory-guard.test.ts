import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/pipeline/config/config.js';
import { readJournal } from '../../../src/run/journal/journal.js';
import { openSupervisor, type Supervisor, type SupervisorEvent } from '../../../src/run/supervisor/supervisor.js';
import { DEMO, doneFile, PHASE_1_2, summaries, tempDir, writeFiles } from '../../helpers/workspace.js';

// Issue 8 item 6: an archivist that truncates meta/chapter-summaries.md was reported
// "done — entry written", and there was no backup of the shared file. Real processes.

const FAKE = join(DEMO, 'agents', 'fake-agent.mjs');
// An archivist that rewrites the shared file with its own entry only.
const TRUNCATE = `const fs = require('node:fs'); const [out, unit] = process.argv.slice(1); fs.writeFileSync(out, '# Chapter summaries\\n\\n## ' + unit + ' — title\\n\\nSummary of ' + unit + '.\\n');`;

function workspace(archivist: string): string {
  const root = tempDir('checkroom-memguard-');
  const steps = ['research', 'draft', 'r1', 'r2', 'r3', 'review', 'panel'];
  writeFiles(root, {
    ...PHASE_1_2,
    'meta/chapter-summaries.md': summaries(['ch01', 'ch02']),
    'faults.json': JSON.stringify({ '*/*': 'ok' }),
    ...Object.fromEntries(['ch01', 'ch02', 'ch03'].flatMap((u) => steps.map((s) => doneFile(u, s)))),
  });
  writeFileSync(
    join(root, 'checkroom.yaml'),
    [
      'preset: book',
      'units: { list: [ch01, ch02, ch03] }',
      'agents:',
      '  archivist:',
      `    command: ${archivist}`,
      "    env: { CHECKROOM_FAKE_SPEED: '40' }",
      '    grace: 200ms',
      'limits: { backoff_base: 20ms, backoff_max: 100ms }',
      '',
    ].join('\n'),
  );
  return root;
}

const open: Supervisor[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close({ cancel: true });
});
const start = async (root: string, events: SupervisorEvent[]) => {
  const s = await openSupervisor({ root, config: await loadConfig(root), rand: () => 0.5, onEvent: (e) => events.push(e) });
  open.push(s);
  return s;
};
const backupsOf = (root: string) => readdirSync(join(root, 'meta')).filter((f) => f.includes('.bak.')).sort();

describe('shared long-memory files around an agent that writes them', () => {
  it('are copied before the run; an archivist that truncates the file fails with a clear reason', async () => {
    const root = workspace(`[node, -e, ${JSON.stringify(TRUNCATE)}, '{output}', '{unit}']`);
    const before = readFileSync(join(root, 'meta/chapter-summaries.md'), 'utf8');
    const events: SupervisorEvent[] = [];
    const s = await start(root, events);
    const r = await s.launch('ch03', 'memory');
    expect(r.outcome).toBe('escalated');
    expect(r.reason).toMatch(/^the run lost the entries of ch01, ch02 from meta\/chapter-summaries\.md \(2 before, 0 kept\); the file as it was before the run is meta\/chapter-summaries\.md\.bak\.\S+ — restore it/);
    expect(events.some((e) => e.type === 'done')).toBe(false);
    // The copy is the file as it was, and every meta/ file beside it was copied too.
    const copies = backupsOf(root);
    expect(copies.filter((f) => f.startsWith('chapter-summaries.md.bak.'))).toHaveLength(1);
    expect(readFileSync(join(root, 'meta', copies.find((f) => f.startsWith('chapter-summaries.md.bak.'))!), 'utf8')).toBe(before);
    for (const f of ['glossary.md', 'style-guide.md', 'metaphor-registry.md', 'cross-references.md']) expect(copies.some((c) => c.startsWith(`${f}.bak.`)), f).toBe(true);
    const ev = (await readJournal(root)).events;
    expect(ev.some((e) => e.type === 'escalate' && e.unit === 'ch03' && e.step === 'memory')).toBe(true);
  });

  it('an archivist that appends its entry is done, and a second run never overwrites the first copy', async () => {
    const fake = `[node, ${JSON.stringify(FAKE)}, --unit, '{unit}', --step, '{step}', --output, '{output}', --marker, '{marker}', --attempt, '{attempt}', --workspace, '{workspace}', --faults, '{workspace}/faults.json']`;
    const root = workspace(fake);
    const s = await start(root, []);
    expect((await s.launch('ch03', 'memory')).outcome).toBe('done');
    expect(readFileSync(join(root, 'meta/chapter-summaries.md'), 'utf8')).toMatch(/## ch01[\s\S]*## ch02[\s\S]*ch03/);
    const first = backupsOf(root).filter((f) => f.startsWith('chapter-summaries.md.bak.'));
    expect(first).toHaveLength(1);
    const firstText = readFileSync(join(root, 'meta', first[0]), 'utf8');
    // A second run of the step, within the same second: a new copy next to the first one.
    expect((await s.launch('ch01', 'memory')).outcome).toBe('done');
    const copies = backupsOf(root).filter((f) => f.startsWith('chapter-summaries.md.bak.'));
    expect(copies).toHaveLength(2);
    expect(readFileSync(join(root, 'meta', first[0]), 'utf8')).toBe(firstText);
    // A file no run changed keeps one copy: the identical newest one is reused, not duplicated.
    expect(backupsOf(root).filter((f) => f.startsWith('glossary.md.bak.'))).toHaveLength(1);
  });
});
