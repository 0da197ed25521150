import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { claudeCodeAdapter } from '../../src/run/adapters/claude-code.js';
import { readLogFacts } from '../../src/run/adapters/log-facts.js';
import { emptyFacts } from '../../src/run/adapters/types.js';
import { LineSplitter } from '../../src/run/process/ring-buffer.js';
import { sanitizeLine } from '../../src/text/sanitize.js';
import { REPO, tempDir } from '../helpers/workspace.js';

// A real Claude Code stream (recorded from the CLI) arriving the way process.ts delivers it:
// in arbitrary chunks, cut at an arbitrary line limit, sanitized, with garbage in between,
// and killed at an arbitrary byte. The live reader never throws, never shows JSON, and keeps
// the session id; the log reader of the same bytes gets the cost whenever the result line
// arrived whole (issue 11: bounded and tolerant of torn lines).

const STREAM = readFileSync(join(REPO, 'test/fixtures/claude-stream-write.jsonl'), 'utf8');

describe('torture: the claude-code stream, torn every way', () => {
  it('chunks, line limits, noise and a kill at any byte', async () => {
    const dir = tempDir();
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 1, max: 900 }), { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 40, max: 4000 }),
        fc.integer({ min: 0, max: STREAM.length }),
        fc.string({ maxLength: 30 }),
        async (cuts, maxLineChars, killAt, noise) => {
          const bytes = `${noise}\n${STREAM.slice(0, killAt)}`;
          const splitter = new LineSplitter({ maxLineChars });
          let facts = emptyFacts();
          const lines: string[] = [];
          let at = 0;
          for (let i = 0; at < bytes.length; i++) {
            const n = cuts[i % cuts.length]!;
            lines.push(...splitter.push(bytes.slice(at, at + n)));
            at += n;
          }
          const last = splitter.end();
          if (last !== null) lines.push(last);
          for (const raw of lines.map(sanitizeLine)) {
            facts = claudeCodeAdapter.read(facts, raw);
            const shown = claudeCodeAdapter.render(raw, facts);
            if (shown !== null) expect(shown.startsWith('{"')).toBe(false);
          }
          const sid = /"session_id":"([^"]+)"/.exec(STREAM)![1];
          if (killAt > STREAM.indexOf(sid!) + sid!.length + 1 && maxLineChars > STREAM.indexOf(sid!) + sid!.length + 1) expect(facts.sessionId).toBe(sid);
          const log = join(dir, 'run.log');
          writeFileSync(log, bytes);
          const fromLog = await readLogFacts(claudeCodeAdapter, log);
          if (killAt === STREAM.length) expect(fromLog.costUsd).toBeCloseTo(0.0216, 6);
        },
      ),
      { numRuns: 300 },
    );
  });
});
