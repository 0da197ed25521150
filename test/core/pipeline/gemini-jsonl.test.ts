import { afterEach, describe, expect, it } from 'vitest';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../../src/pipeline/config/config.js';
import { readJournal, type JournalEvent } from '../../../src/run/journal/journal.js';
import { openSupervisor, type Supervisor } from '../../../src/run/supervisor/supervisor.js';
import { bookResponder, startModelServer, type ModelReply, type ModelServer } from '../../../src/demo/model-server.js';
import { PHASE_1_2, REPO, summaries, tempDir, writeFiles } from '../../helpers/workspace.js';

// A second real agent CLI through the same seam (issue 11 item 6): Gemini CLI (the
// devDependency @google/gemini-cli), offline against the scripted model server speaking
// the Gemini API (GOOGLE_GEMINI_BASE_URL), mapped by `adapter: jsonl` field paths alone.

const GEMINI = join(REPO, 'node_modules', '.bin', 'gemini');
const FIELDS = '{ session: session_id, activity: tool_name, activity_detail: parameters.file_path, tokens_in: stats.input_tokens, tokens_out: stats.output_tokens, final: stats, is_error: status, error_text: error.message }';

const opened: { s: Supervisor; server: ModelServer }[] = [];
afterEach(async () => {
  for (const { s, server } of opened.splice(0)) {
    await s.close({ cancel: true });
    await server.close();
  }
});

async function geminiWorkspace(script: ModelReply[] | null) {
  const root = tempDir('checkroom-gemini-');
  const home = tempDir('checkroom-gemini-home-');
  // Headless Gemini CLI needs an auth type chosen in its settings (an env key alone is refused:
  // "Invalid auth method selected"), and folder trust off or it drops the approval mode.
  mkdirSync(join(home, '.gemini'));
  writeFileSync(join(home, '.gemini', 'settings.json'), JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' }, folderTrust: { enabled: false } }, telemetry: { enabled: false }, privacy: { usageStatisticsEnabled: false } }));
  const server = await startModelServer({ script: script ?? [], fallback: bookResponder(), lifetimeMs: 120_000 });
  const env = { HOME: home, GEMINI_API_KEY: 'test', GOOGLE_GEMINI_BASE_URL: server.url, GEMINI_TELEMETRY_ENABLED: 'false', NO_COLOR: '1' };
  writeFiles(root, { ...PHASE_1_2, 'meta/chapter-summaries.md': summaries([]) });
  writeFileSync(
    join(root, 'checkroom.yaml'),
    [
      'preset: book',
      'units: { list: [ch01] }',
      'batches: [{ id: 1, units: [ch01] }]',
      'agents:',
      '  researcher:',
      '    adapter: jsonl',
      `    command: [${JSON.stringify(GEMINI)}, -p, 'Write the file {output} for {unit} ({step}). Its last line must be <!-- {marker} -->.', --output-format, stream-json, --approval-mode, auto_edit]`,
      `    env: ${JSON.stringify(env)}`,
      `    fields: ${FIELDS}`,
      '    idle_timeout: 30s',
      '    grace: 200ms',
      'limits: { backoff_base: 20ms, backoff_max: 100ms }',
      '',
    ].join('\n'),
  );
  const s = await openSupervisor({ root, config: await loadConfig(root), rand: () => 0.5 });
  opened.push({ s, server });
  return { root, s, server };
}

const all = async <T extends JournalEvent['type']>(root: string, type: T) => (await readJournal(root)).events.filter((e): e is Extract<JournalEvent, { type: T }> => e.type === type);

describe('Gemini CLI through adapter: jsonl, real binary', () => {
  it('a real write_file with the marker ends ✅; session and tokens come from the mapped fields', async () => {
    const { root, s } = await geminiWorkspace(null);
    const r = await s.launch('ch01', 'research');
    expect(r.outcome).toBe('done');
    expect(readFileSync(join(root, 'research/ch01-research.md'), 'utf8').trimEnd().split('\n').pop()).toBe('<!-- RESEARCH_COMPLETE -->');
    const facts = (await all(root, 'agent_facts')).at(-1)!;
    expect(facts.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(facts.tokensIn).toBeGreaterThan(0);
    expect(facts.tokensOut).toBeGreaterThan(0);
  }, 90_000);

  it('a 401 answer is PERMISSION from the stream, and escalates at once', async () => {
    const { root, s } = await geminiWorkspace([{ kind: 'error', status: 401, type: 'authentication_error', message: 'API key not valid' }]);
    const r = await s.launch('ch01', 'research');
    expect(r.outcome).toBe('escalated');
    expect((await all(root, 'exit')).map((e) => e.class)).toEqual(['PERMISSION']);
  }, 90_000);
});
