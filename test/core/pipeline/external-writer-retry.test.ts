import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { PHASE_1_2, summaries, tempDir, writeFiles } from '../../helpers/workspace.js';
import { holdOpen, killWriters } from '../../helpers/writer.js';
import { loadConfig } from '../../../src/pipeline/config/config.js';
import { readJournal } from '../../../src/run/journal/journal.js';
import { openSupervisor, type Supervisor } from '../../../src/run/supervisor/supervisor.js';

// Issue 17 item 1, the retry path: an attempt backs its output up before it runs. A retry
// must not do that from under a writer checkroom did not launch (before: prepare() moved the
// half-product aside while an outside process held it open; its later bytes went to the .bak).

const open: Supervisor[] = [];
afterEach(async () => {
  killWriters();
  for (const s of open.splice(0)) await s.close({ cancel: true });
});

describe('a retry and an outside writer', () => {
  it('the retry does not run while another process holds the output open; the file keeps every byte', async () => {
    const root = tempDir();
    const out = join(root, 'research/ch01-research.md');
    const gate = join(root, 'gate');
    writeFiles(root, {
      ...PHASE_1_2,
      'meta/chapter-summaries.md': summaries([]),
      // Attempt 1 writes half and fails; it then waits until the test has a writer holding
      // the file, so the retry starts with the file held.
      'agent.mjs': [
        "import { existsSync, mkdirSync, writeFileSync } from 'node:fs';",
        "import { dirname } from 'node:path';",
        "const [output, gate] = process.argv.slice(2);",
        "mkdirSync(dirname(output), { recursive: true });",
        "writeFileSync(output, '# ch01\\n\\nhalf of it\\n');",
        "const t0 = Date.now();",
        "while (!existsSync(gate) && Date.now() - t0 < 20000) await new Promise((r) => setTimeout(r, 50));",
        "console.error('Error: the outline is gone');",
        'process.exit(1);',
      ].join('\n'),
      'checkroom.yaml': [
        'preset: book',
        'units: { list: [ch01] }',
        'agents:',
        `  researcher: { command: [node, agent.mjs, '{output}', ${JSON.stringify(gate)}], idle_timeout: 30s }`,
        'limits: { backoff_base: 10ms, backoff_max: 20ms }',
        'breaker: { threshold: 100 }',
        '',
      ].join('\n'),
    });
    const s = await openSupervisor({ root, config: await loadConfig(root), rand: () => 0.5 });
    open.push(s);
    const r = s.launch('ch01', 'research');
    for (let i = 0; i < 400 && !(existsSync(out) && readFileSync(out, 'utf8').includes('half')); i++) await new Promise((res) => setTimeout(res, 25));
    const w = await holdOpen(out);
    writeFiles(root, { gate: '' });
    const result = await r;
    expect(result.outcome).toBe('failed');
    expect(result.reason).toMatch(/is not relaunched: .*being written by pid \d+/);
    const launches = (await readJournal(root)).events.filter((e) => e.type === 'launch');
    expect(launches).toHaveLength(1);
    expect(readdirSync(join(root, 'research')).filter((f) => f.includes('.bak'))).toEqual([]);
    await w.finish('the writer’s last words\n');
    expect(readFileSync(out, 'utf8')).toBe('# ch01\n\nhalf of it\nthe writer’s last words\n');
  });
});
