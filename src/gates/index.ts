// The gate-file workflow adapter (docs/domain.md, Workflow gate files): one entry point and its types.
export { scanGateWorkspace, GATES_DIR, MEMORY_DIR, MEMORY_FILES } from './scan.js';
export { normaliseGate, classifyGate, compareSteps, displayStep, parseStepFile, stepKey } from './gate-file.js';
export { buildWorkflow } from './workflow.js';
export type * from './types.js';
export { describeProof, gateDetailLines, isGateCell } from './cell-detail.js';
