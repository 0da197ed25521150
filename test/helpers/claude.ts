import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { claudeEnv, startModelServer, type ModelReply, type ModelServer, type ScriptStep } from '../../src/demo/model-server.js';
import { BOOK_MARKERS, PHASE_1_2, REPO, pathOf, prose, summaries, tempDir, writeFiles } from './workspace.js';

// A book workspace whose agents are the real Claude Code CLI (the devDependency), pointed at
// a scripted Messages API server on 127.0.0.1 (issue 11). Nothing leaves the machine.

export const CLAUDE_BIN = join(REPO, 'node_modules', '.bin', 'claude');

export const PROMPT = 'Write the file {output} for {unit} ({step}). Its last line must be <!-- {marker} -->.';

export interface ClaudeWsOptions {
  units?: string[];
  idle?: string;
  /** The CLI's own retries (CLAUDE_CODE_MAX_RETRIES); default 0 so one answer is one attempt. */
  retries?: number;
  onInterrupt?: 'continue' | 'restart';
  /** null: no permission settings at all (the documented minimal config, issue 17 item 9). */
  permissionMode?: string | null;
  limits?: string[];
}

export interface ClaudeWs {
  root: string;
  server: ModelServer;
  home: string;
}

/** The tool call that writes a step's output with its marker as the last line. */
export const writeReply = (root: string, unit: string, step: string, body = prose(300, 'w')): ModelReply => ({
  kind: 'tool',
  name: 'Write',
  text: `Writing ${pathOf(unit, step)}.`,
  input: { file_path: join(root, pathOf(unit, step)), content: `# ${unit} ${step}\n\n${body}\n\n<!-- ${BOOK_MARKERS[step]![1]} -->\n` },
});

export const finished: ModelReply = { kind: 'text', text: 'The file is written and marked.' };

export async function claudeWorkspace(script: (root: string) => ScriptStep[], o: ClaudeWsOptions = {}): Promise<ClaudeWs> {
  const root = tempDir('checkroom-claude-');
  const home = tempDir('checkroom-claude-home-');
  const server = await startModelServer({ script: script(root), lifetimeMs: 180_000 });
  const units = o.units ?? ['ch01'];
  const env = { ...claudeEnv(server.url, home, o.retries ?? 0), ...unfaked() };
  writeFiles(root, { ...PHASE_1_2, 'meta/chapter-summaries.md': summaries([]) });
  const yaml = [
    'preset: book',
    `units: { list: [${units.join(', ')}] }`,
    `batches: [{ id: 1, units: [${units.join(', ')}] }]`,
    'agents:',
    '  researcher: &a',
    '    adapter: claude-code',
    `    bin: ${JSON.stringify(CLAUDE_BIN)}`,
    `    prompt: ${JSON.stringify(PROMPT)}`,
    ...(o.permissionMode === null ? [] : [`    permission_mode: ${o.permissionMode ?? 'acceptEdits'}`]),
    `    env: ${JSON.stringify(env)}`,
    // Generous unless a test is about the watchdog: under CI load the CLI's own start has
    // taken past 20 s, and a STALLED attempt appeared where none was meant.
    `    idle_timeout: ${o.idle ?? '90s'}`,
    '    grace: 200ms',
    ...(o.onInterrupt ? [`    on_interrupt: ${o.onInterrupt}`] : []),
    '  writer: *a',
    '  reviewer: *a',
    '  editor: *a',
    '  panel: *a',
    '  archivist: *a',
    'limits:',
    '  backoff_base: 20ms',
    '  backoff_max: 100ms',
    ...(o.limits ?? []).map((l) => `  ${l}`),
    'breaker: { threshold: 50, cooldown: 1s }',
    '',
  ].join('\n');
  writeFileSync(join(root, 'checkroom.yaml'), yaml);
  return { root, server, home };
}

/**
 * The Claude Code CLI is a native binary that does not start under libfaketime (`faketime
 * claude --version` exits 1 with no output). CI runs the suite a second time under faketime to
 * prove checkroom does not depend on the date; the third-party CLI it launches then runs on the
 * real clock: its preload is cleared in the agent's environment, and only under faketime.
 */
export const unfaked = (): Record<string, string> => (process.env.LD_PRELOAD?.includes('faketime') ? { LD_PRELOAD: '' } : {});
