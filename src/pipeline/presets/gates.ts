import { scanArtifacts } from '../../scan/scan.js';
import { scanGateWorkspace } from '../../gates/scan.js';
import { gateWatchDirs, gateWorkspaceState } from '../../gates/state.js';
import { gateSummary, workflowInterrupted } from '../../gates/summary.js';
import { gatesPreset } from '../gates-preset.js';
import { GATE_WORDS } from '../../resume/gate-vocab.js';
import { gateLetterFiles, gateLetterSteps } from '../../resume/gate-files.js';
import { gateDetailLines, isGateCell } from '../../gates/cell-detail.js';
import { gateRecoverLines } from '../../gates/recover-lines.js';
import type { GateWorkspace } from '../../gates/types.js';
import type { Preset, Sources } from './types.js';

// The gate-file workflow layout (docs/domain.md, Workflow gate files): plans, gate files and reasoning under
// .claude/context/ are the state, read whole (a workflow is small) on any change under
// .claude/, and never rewritten: no checkpoint.md, no todo table, nothing for recover to rebuild.

/** The layout a gate-file workflow leaves (docs/domain.md, Workflow gate files). */
export const GATE_LAYOUT_DIR = '.claude/context/history/gates';

export const DETECTED_GATES = `no preset in checkroom.yaml: the gate-file layout (${GATE_LAYOUT_DIR}/) was found, so the gates preset is used — write preset: gates (or preset: book) to choose`;

const underClaude = (rel: string): boolean => rel === '.claude' || rel.startsWith('.claude/');

/** The workflows this preset's read put in the sources (its own state). */
const gatesOf = (src: Sources): GateWorkspace | undefined => src.own as GateWorkspace | undefined;

export const GATES: Preset = {
  name: 'gates',
  pipeline: gatesPreset,
  source: {
    async read(root, config) {
      // Steps are not known in advance: they come from the plans and gate files.
      const gates = await scanGateWorkspace(root);
      const scan = scanArtifacts(root, config.pipeline, []);
      return { root, config, checkpoint: null, units: gates.workflows.map((w) => w.id), scan, todos: null, warnings: [], own: gates };
    },
    derive: (src, running) => gateWorkspaceState(src.root, gatesOf(src) ?? { root: src.root, workflows: [], memory: [], warnings: [] }, { pipeline: src.config.pipeline, running, warnings: src.warnings }),
    watchDirs: (src) => {
      const gates = gatesOf(src);
      return gates ? gateWatchDirs(gates) : [];
    },
    owns: underClaude,
    incremental: false,
  },
  has: { checkpoint: false, resume: true, todos: false },
  words: {
    unit: 'workflow',
    title: 'gate-file workflow',
    record: 'plan files',
    proof: 'gate files (decide)',
    noCheckpoint: 'gate-file workflows have no checkpoint.md: the gate files are their record',
  },
  layout: { dir: GATE_LAYOUT_DIR, notice: DETECTED_GATES },
  letter: { words: GATE_WORDS, files: gateLetterFiles, progress: gateLetterSteps },
  async readOnlyRecovery(src) {
    // Already scanned by readSources, and its warnings are already in the state's.
    const ws = gatesOf(src) ?? (await scanGateWorkspace(src.root));
    return { workflows: ws.workflows.map(gateSummary), interrupted: ws.workflows.some(workflowInterrupted) };
  },
  // A gate cell's proof is its gate file, and the plan stands where checkpoint.md would.
  cellDetail(cell, claim) {
    if (!isGateCell(cell)) return null;
    const d = gateDetailLines(cell, claim);
    return { size: d.size, proof: ['gate', d.gate], claims: d.claims };
  },
  // The workflows are read whole, outside the facts cache: no key names them exactly.
  cacheKeys: () => null,
  recoverLines: (r, d) => gateRecoverLines(r.gates, d),
};
