import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { readFileFacts } from '../scan/file-facts.js';
import type { Warning } from '../types.js';
import { parseStepFile, stepKey } from './gate-file.js';
import { isRecord, readJson, str } from './read-json.js';
import type { ReasoningNote } from './types.js';

// Reasoning files (docs/domain.md, Workflow gate files): `.claude/context/history/reasoning/{id}/*.json`
// in two shapes — `{agent, step, timestamp, decisions[...]}` and `{assumptions,
// decision_criteria, tradeoffs, open_questions, final_decision}`. One with no final
// decision and no gate marks an interrupted step (the agent was thinking when it died).

export const REASONING_DIR = '.claude/context/history/reasoning';

const nonEmpty = (v: unknown): boolean =>
  v !== null && v !== undefined && (typeof v !== 'string' || v.trim() !== '') && (!Array.isArray(v) || v.length > 0) && (!isRecord(v) || Object.keys(v).length > 0);

export async function readReasoning(root: string, id: string, warnings: Warning[]): Promise<ReasoningNote[]> {
  const dir = join(root, REASONING_DIR, id);
  let files: string[];
  try {
    files = (await readdir(dir)).filter((f) => f.endsWith('.json')).sort();
  } catch {
    return [];
  }
  const notes: ReasoningNote[] = [];
  for (const f of files) {
    const rel = `${REASONING_DIR}/${id}/${f}`;
    const named = parseStepFile(f);
    const read = await readJson(join(dir, f));
    const v = read.kind === 'ok' && isRecord(read.value) ? read.value : null;
    const number = named?.number ?? stepKey(v?.step) ?? null;
    if (number === null) {
      warnings.push({ source: rel, message: 'reasoning file has no step number in its name or content; ignored' });
      continue;
    }
    const agent = named?.agent ?? str(v?.agent) ?? '';
    // Its size, counted as the scan counts artifacts: the half-product of an interrupted step.
    const facts = readFileFacts(join(dir, f), rel, null);
    const size = { bytes: facts.bytes, chars: facts.chars };
    if (!v) {
      warnings.push({ source: rel, message: `reasoning file cannot be read (${read.kind}); treated as having no final decision` });
      notes.push({ file: rel, number, agent, shape: 'unreadable', hasDecision: false, ...size });
    } else if ('final_decision' in v || 'assumptions' in v || 'decision_criteria' in v) {
      notes.push({ file: rel, number, agent, shape: 'final_decision', hasDecision: nonEmpty(v.final_decision), ...size });
    } else {
      notes.push({ file: rel, number, agent, shape: 'decisions', hasDecision: nonEmpty(v.decisions), ...size });
    }
  }
  return notes;
}
