import type { PipelineDef } from '../types.js';

// The gate-file workflow layout (docs/domain.md, Workflow gate files). Steps are not known in advance: the
// gate adapter discovers them from plan-{workflow_id}.json, so this preset only fixes the
// shape — one phase and the unit pattern. Units are workflow ids like `1735123456-abc123`
// (seconds-epoch, dash, short hex/base36).

export const GATES_UNIT_PATTERN = '\\d{10}-[a-z0-9]+';

export const gatesPreset = (): PipelineDef => ({
  name: 'gates',
  source: 'built-in preset "gates"',
  phases: [{ id: 1, name: 'Workflow', aliases: ['Workflow'], artifacts: [], barrier: false }],
  steps: [],
  units: { pattern: GATES_UNIT_PATTERN },
  batches: [],
});
