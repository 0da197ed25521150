import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../../src/pipeline/config/config.js';
import { readJournal, type JournalEvent } from '../../../src/run/journal/journal.js';
import { openSupervisor, type Supervisor } from '../../../src/run/supervisor/supervisor.js';
import { claudeWorkspace, finished, writeReply, type ClaudeWs } from '../../helpers/claude.js';

// Issue 17 item 9: a claude-code agent with no permission settings (the documented minimal
// config) may write its own {output} and nothing else. Before, every Write was denied in
// print mode and the cell escalated as PERMISSION. The real CLI enforces the rule.

const opened: { s: Supervisor; ws: ClaudeWs }[] = [];
afterEach(async () => {
  for (const { s, ws } of opened.splice(0)) {
    await s.close({ cancel: true });
    await ws.server.close();
  }
});

type Ev<T extends JournalEvent['type']> = Extract<JournalEvent, { type: T }>;
const all = async <T extends JournalEvent['type']>(root: string, type: T): Promise<Ev<T>[]> => (await readJournal(root)).events.filter((e): e is Ev<T> => e.type === type);

const run = async (script: Parameters<typeof claudeWorkspace>[0]) => {
  const ws = await claudeWorkspace(script, { permissionMode: null });
  const s = await openSupervisor({ root: ws.root, config: await loadConfig(ws.root), rand: () => 0.5 });
  opened.push({ s, ws });
  return { ws, r: await s.launch('ch01', 'research') };
};

describe('claude-code least privilege by default, real CLI', () => {
  it('with no permission settings the agent writes its own output and the cell ends done', async () => {
    const { ws, r } = await run((root) => [writeReply(root, 'ch01', 'research'), finished]);
    expect(r.outcome).toBe('done');
    expect(readFileSync(join(ws.root, 'research/ch01-research.md'), 'utf8')).toContain('<!-- RESEARCH_COMPLETE -->');
    const launch = (await all(ws.root, 'launch'))[0]!;
    const rule = launch.argv[launch.argv.indexOf('--allowedTools') + 1];
    expect(rule).toBe(`Edit(/${join(ws.root, 'research/ch01-research.md')})`);
  });

  it('a Write anywhere else is denied, classified PERMISSION, and the message names the denied path', async () => {
    const { ws, r } = await run((root) => [
      { kind: 'tool', name: 'Write', text: 'Writing elsewhere.', input: { file_path: join(root, 'notes/elsewhere.md'), content: 'x\n' } },
      finished,
    ]);
    expect(r.outcome).toBe('escalated');
    expect(existsSync(join(ws.root, 'notes/elsewhere.md'))).toBe(false);
    const exit = (await all(ws.root, 'exit'))[0]!;
    expect(exit.class).toBe('PERMISSION');
    expect(exit.error).toContain(`permission denied: Write ${join(ws.root, 'notes/elsewhere.md')}`);
  });
});
