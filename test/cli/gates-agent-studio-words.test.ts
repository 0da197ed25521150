import { cpSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseCli } from '../../src/cli/args.js';
import { checkpointCommand, statusCommand } from '../../src/cli/commands/core-commands.js';
import { recoverCommand, resumeCommand } from '../../src/cli/commands/recovery-commands.js';
import { parseResume } from '../../src/resume/parse.js';
import { refuseRun } from '../../src/cli/run-preflight.js';
import { readSources, stateOf } from '../../src/workspace.js';
import { REPO, tempDir } from '../helpers/workspace.js';

// Issue 18 item 4: resume, recover and status speak the workflow's language on the
// agent-studio fixture (test/fixtures/agent-studio-flow): steps, gates, the plan, the
// workflow file — never chapters or checkpoint.md, and no raw `{unit}` template path.

const ID = '1764800000-q7m2x9';
const o = { paint: (_t: string, s: string) => s, ascii: true, width: 200 };

function copy(): string {
  const dir = tempDir('checkroom-agent-studio-words-');
  cpSync(join(REPO, 'test', 'fixtures', 'agent-studio-flow'), dir, { recursive: true });
  return dir;
}

async function run(f: (out: { write: (s: string) => void }) => Promise<unknown>): Promise<string> {
  let text = '';
  await f({ write: (s) => void (text += s) });
  return text;
}

const NO_BOOK_WORDS = /chapter|checkpoint|\{unit\}|\{\{workflow_id\}\}/i;

describe('agent-studio words (issue 18 item 4)', () => {
  it('resume: steps, gates and the plan; the failed step 04 blocks 2 later steps; files by workflow id', async () => {
    const dir = copy();
    const text = await run((out) => resumeCommand(parseCli(['resume', dir]), o, out));
    expect(text).not.toMatch(NO_BOOK_WORDS);
    expect(text).not.toContain('blocks nothing downstream');
    expect(text).toMatch(new RegExp(`- ${ID} s04 \\S+ failed — impact: blocks 2 later steps of ${ID}`));
    expect(text).toContain(`impact: step 05 of ${ID} must be redone before the steps that need it`);
    expect(text).toContain('1. Read the gate files of each workflow to confirm progress');
    expect(text).toContain(`- Gates of ${ID}: ${dir}/.claude/context/history/gates/${ID}/`);
    expect(text).toContain(`- Workflow files: ${dir}/.claude/workflows/`);
    expect(text).toContain('- Workflows: 1');
    // The whole workflow, step by step, with what each needs.
    expect(text).toContain(
      `- Steps of ${ID}: 00 planner passed; 01 analyst passed (needs 00); 02 architect passed (needs 00, 01); 03 qa passed (needs 01); ` +
        '04 developer failed (needs 00, 02); 05 technical-writer half-done (needs 02, 03); 06 code-reviewer not started (needs 04); 07 qa not started (needs 03, 04, 06)',
    );
    // The letter still reads back.
    expect(parseResume(text)).toMatchObject({ inProgress: [ID], done: [], unfinished: [{ unit: ID, step: 's04', status: 'failed' }, { unit: ID, step: 's05', status: 'partial' }] });
  });

  it('recover: last passed 03, next 04 (developer), failed and interrupted steps; no false warning', async () => {
    const text = await run((out) => recoverCommand(parseCli(['recover', copy(), '--dry-run']), o, out));
    expect(text).not.toMatch(NO_BOOK_WORDS);
    expect(text).toContain(`${ID} Invoice export feature: last passed step 03 · next 04 developer (Implementation)`);
    // Every step of the workflow file, with what it needs, in the workflow's words.
    expect(text.split('\n').filter((l) => l.startsWith('    step ')).map((l) => l.trim())).toEqual([
      'step 00 planner · Planning Phase · gate passed',
      'step 01 analyst · Requirements Analysis · gate passed · needs 00',
      'step 02 architect · System Architecture · gate passed · needs 00, 01',
      'step 03 qa · Test Design · gate passed · needs 01',
      'step 04 developer · Implementation · gate failed · needs 00, 02',
      'step 05 technical-writer · Documentation · half-done · needs 02, 03',
      'step 06 code-reviewer · Code Review · not started · needs 04',
      'step 07 qa · QA Signoff · not started · needs 03, 04, 06',
    ]);
    expect(text).toContain('failed validation: step 04 (VERIFICATION_FAILED)');
    expect(text).toContain('interrupted steps: 05');
    expect(text).not.toMatch(/re-run the step|next none/);
  });

  it('checkpoint (preview or --write) refuses: this layout has no checkpoint.md, and none is written', async () => {
    const dir = copy();
    for (const write of [false, true]) {
      const text = run((out) => checkpointCommand([dir], write, o, out));
      await expect(text).rejects.toMatchObject({ name: 'UsageError', message: expect.stringMatching(/^gate-file workflows have no checkpoint\.md: the gate files are their record; nothing written/) });
    }
    expect(existsSync(join(dir, 'checkpoint.md'))).toBe(false);
  });

  it('run of a step says what to add to launch it, not "steps: " with an empty list', async () => {
    const src = await readSources(copy());
    const why = refuseRun(src.root, src.config, stateOf(src), ID, 's06', false);
    expect(why).toBe('step "s06" is read from the workspace\'s files and checkroom.yaml lists no steps, so no agent is set to launch it: run it with the workflow\'s own runner, or add it with its agent under steps: in checkroom.yaml');
  });

  it('status: the plan is the record, plan/gate discrepancies, 4/8 done, one half-product', async () => {
    const text = await run((out) => statusCommand([copy()], false, o, out));
    expect(text).not.toMatch(NO_BOOK_WORDS);
    expect(text).toContain('· plan in_execution');
    expect(text).toMatch(/4\/8 done · 1 partial · 1 failed/);
    expect(text).toContain('1 half-products · 0 suspicious · 0 plan/gate discrepancies · 0 warnings');
    expect(text).toMatch(/s00 s01 s02 s03 s04 s05 s06 s07\s*\n/);
  });
});
