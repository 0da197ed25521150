import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEMO, PHASE_1_2, summaries, tempDir, writeFiles } from './workspace.js';

// A book workspace whose agents are Slurm jobs (issue 12), the demo's fake agent doing the
// work; faults.json per workspace decides which cells misbehave.

export const FAKE_AGENT = join(DEMO, 'agents', 'fake-agent.mjs');

export interface SlurmWsOpts {
  units?: string[];
  faults?: Record<string, string>;
  idle?: string;
  timeout?: string;
  concurrency?: number;
  limits?: string[];
  breaker?: string;
  /** Replace the researcher's command (argv as YAML flow list). */
  researcher?: string;
  speed?: number;
  /** The top-level slurm: mapping (YAML flow). */
  slurm?: string;
}

export const slurmWorkspace = (o: SlurmWsOpts = {}): string => {
  const root = tempDir('checkroom-slurm-ws-');
  const units = o.units ?? ['ch01'];
  writeFiles(root, { ...PHASE_1_2, 'meta/chapter-summaries.md': summaries([]), 'faults.json': JSON.stringify({ ...(o.faults ?? {}), '*/*': 'ok' }) });
  const fake = `[node, ${JSON.stringify(FAKE_AGENT)}, --unit, '{unit}', --step, '{step}', --output, '{output}', --marker, '{marker}', --attempt, '{attempt}', --workspace, '{workspace}', --faults, ${JSON.stringify(join(root, 'faults.json'))}]`;
  const agent = (name: string, command: string) => [
    `  ${name}:`,
    `    command: ${command}`,
    `    env: { CHECKROOM_FAKE_SPEED: '${o.speed ?? 20}' }`,
    `    idle_timeout: ${o.idle ?? '60s'}`,
    `    timeout: ${o.timeout ?? '10m'}`,
    '    grace: 1s',
    `    concurrency: ${o.concurrency ?? 2}`,
  ];
  writeFileSync(
    join(root, 'checkroom.yaml'),
    [
      'preset: book',
      `units: { list: [${units.join(', ')}] }`,
      `batches: [{ id: 1, units: [${units.join(', ')}] }]`,
      'executor: slurm',
      `slurm: ${o.slurm ?? '{ poll: 500ms }'}`,
      'agents:',
      ...agent('researcher', o.researcher ?? fake),
      ...['writer', 'reviewer', 'editor', 'panel', 'archivist'].flatMap((n) => agent(n, fake)),
      'limits:',
      ...(o.limits ?? ['  backoff_base: 100ms', '  backoff_max: 500ms']),
      `breaker: ${o.breaker ?? '{ threshold: 50, cooldown: 1s }'}`,
      '',
    ].join('\n'),
  );
  return root;
};
