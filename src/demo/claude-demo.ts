import { bookResponder, type ModelReply, type SeenRequest } from './model-server.js';

// `npm start -- --claude`: the book demo with its writing agents replaced
// by the real Claude Code CLI, talking to the scripted model server on 127.0.0.1. The
// long-memory archivist and the publisher stay on the fake agent: two adapters side by side.
// The script shows, within two minutes, tool activity and cost per cell, one overload
// answered and retried, and one stream that goes silent mid-tool-arguments and is then
// continued by resuming its session.

export interface ClaudeDemoOptions {
  /** The claude executable (the devDependency's, or one on PATH). */
  bin: string;
  env: Record<string, string>;
  idleTimeout?: string;
}

const PROMPT =
  'You are the {step} agent of a technical book. Write the file {output} for chapter {unit}. ' +
  'Its last line must be <!-- {marker} --> and appending that line is your last act.';

const FAKE = "[node, agents/fake-agent.mjs, --unit, '{unit}', --step, '{step}', --output, '{output}', --attempt, '{attempt}', --workspace, '{workspace}']";

export const claudeDemoYaml = (o: ClaudeDemoOptions): string =>
  [
    '# The book demo driven by the real Claude Code CLI against a scripted local model',
    '# (npm start -- --claude): nothing leaves 127.0.0.1.',
    'preset: book',
    '',
    'agents:',
    '  researcher: &claude',
    '    adapter: claude-code',
    `    bin: ${JSON.stringify(o.bin)}`,
    `    prompt: ${JSON.stringify(PROMPT)}`,
    '    permission_mode: acceptEdits',
    '    allowed_tools: [Write, Read, Edit]',
    '    on_interrupt: continue',
    `    env: ${JSON.stringify(o.env)}`,
    `    idle_timeout: ${o.idleTimeout ?? '6s'}`,
    '    timeout: 3m',
    '    grace: 500ms',
    '    concurrency: 2',
    '  writer: *claude',
    '  reviewer: *claude',
    '  editor: *claude',
    '  panel: *claude',
    '  archivist:',
    `    command: ${FAKE}`,
    '    idle_timeout: 8s',
    '    concurrency: 1',
    '  publisher:',
    `    command: ${FAKE.replace("'{attempt}',", "'{attempt}', --marker, '{marker}',")}`,
    '    idle_timeout: 8s',
    '',
    'limits:',
    '  max_launches: 80',
    '  backoff_base: 1s',
    '  backoff_max: 6s',
    '  max_cost_usd: { session: 2.5 }',
    '',
    'breaker:',
    '  threshold: 3',
    '  cooldown: 5s',
    '',
  ].join('\n');

/** The demo's model: the book responder, with one 529 and one silent stream early on. */
export const claudeDemoScript = (): ((req: SeenRequest) => ModelReply) => {
  const write = bookResponder((p) => `Notes for ${p.split('/').pop()}, written by the scripted model.\n\nEach paragraph is short; the marker below proves the step is done.`);
  let fresh = 0;
  let stalled = false;
  return (req) => {
    // Only first turns count: a tool result is always answered, so no attempt is left half-done.
    if (req.toolResults.length === 0 && !/was interrupted/.test(req.lastUserText)) {
      fresh++;
      if (fresh === 2) return { kind: 'error', status: 529, type: 'overloaded_error', message: 'Overloaded' };
      if (fresh === 4 && !stalled) {
        stalled = true;
        const reply = write(req);
        if (reply.kind === 'tool') return { kind: 'stall', during: 'tool_args', name: reply.name, input: reply.input };
      }
    }
    return write(req);
  };
};
