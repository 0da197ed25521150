import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../../src/pipeline/config/config.js';
import { formatMemory, parseMemory, resourcesOf, resourcesWords } from '../../../src/pipeline/resources.js';
import { resourcesFrom, resourcesSchema } from '../../../src/pipeline/schema-resources.js';

// resources: per agent (the default) and per step (issue 22 item 4): read into MiB and ms,
// the step's over the agent's; a bad value is refused at its node, file:line:col.

const errorOf = (text: string): ConfigError => {
  try {
    parseConfig(text, 'checkroom.yaml');
  } catch (e) {
    if (e instanceof ConfigError) return e;
    throw e;
  }
  throw new Error('expected a ConfigError, got a config');
};

const AGENT = 'agents:\n  writer:\n    command: [node, w.mjs]\n';

describe('resources in checkroom.yaml', () => {
  it('an agent default and a step override resolve field by field, the step winning', () => {
    const cfg = parseConfig(
      `${AGENT}    resources: { memory: 4G, cpus: 2, partition: batch, account: books, time: 30m }\nsteps:\n  - id: draft\n    agent: writer\n    resources: { memory: 8G, gpus: 1, memory_ladder: [8G, 16G, 32G] }\n`,
      'checkroom.yaml',
    );
    const agent = cfg.agents.writer!.resources;
    const step = cfg.pipeline.steps.find((s) => s.id === 'draft')!.resources;
    expect(agent).toEqual({ memoryMiB: 4096, cpus: 2, partition: 'batch', account: 'books', timeMs: 30 * 60_000 });
    expect(resourcesOf(agent, step)).toEqual({ memoryMiB: 8192, cpus: 2, gpus: 1, partition: 'batch', account: 'books', timeMs: 30 * 60_000, ladder: { steps: [8192, 16384, 32768] } });
    expect(resourcesWords(resourcesOf(agent, step))).toBe('memory 8G, 2 cpus, 1 gpu, time 30m, partition batch, account books');
  });

  it('a factor ladder resolves to its factor and cap; nothing set is no resources', () => {
    expect(resourcesFrom(resourcesSchema.parse({ memory: '2G', memory_ladder: { factor: 2, max: '8G' } }))).toEqual({ memoryMiB: 2048, ladder: { factor: 2, maxMiB: 8192 } });
    expect(resourcesFrom(undefined)).toBeUndefined();
  });

  it('memory sizes are binary units, as Slurm reads them', () => {
    expect(parseMemory('512M')).toBe(512);
    expect(parseMemory('4G')).toBe(4096);
    expect(parseMemory('8Gi')).toBe(8192);
    expect(parseMemory('1.5T')).toBe(1536 * 1024);
    expect(parseMemory('4X')).toBeNull();
    expect(parseMemory('G')).toBeNull();
    expect([formatMemory(4096), formatMemory(1536), formatMemory(1024 * 1024)]).toEqual(['4G', '1536M', '1T']);
  });

  const cases: { name: string; yaml: string; at: [number, number]; words: string[] }[] = [
    { name: 'memory: 4X', yaml: `${AGENT}    resources:\n      memory: 4X\n`, at: [5, 15], words: ['agents.writer.resources.memory', '"4X"', 'a memory size like 512M, 4G'] },
    { name: 'cpus: 0', yaml: `${AGENT}    resources: { cpus: 0 }\n`, at: [4, 24], words: ['resources.cpus', 'an integer from 1 to 4096'] },
    { name: 'a partition that would be an option', yaml: `${AGENT}    resources: { partition: '--uid=0' }\n`, at: [4, 29], words: ['resources.partition', 'a Slurm name'] },
    { name: 'a ladder that does not rise', yaml: `steps:\n  - id: draft\n    resources:\n      memory_ladder: [8G, 4G]\n`, at: [4, 22], words: ['steps[0].resources.memory_ladder', 'rise step by step'] },
    { name: 'a factor ladder with no memory to climb from', yaml: `${AGENT}    resources:\n      memory_ladder: { factor: 2, max: 16G }\n`, at: [5, 22], words: ['memory_ladder', 'climbs from memory:, which is not set', 'memory: set to the first step'] },
    { name: 'an unknown key', yaml: `${AGENT}    resources: { mem: 4G }\n`, at: [4, 18], words: ['unknown key "mem"', 'memory, cpus, gpus, time, partition, account, memory_ladder'] },
  ];
  for (const c of cases)
    it(`refuses ${c.name} at its node`, () => {
      const e = errorOf(c.yaml);
      expect([e.line, e.column]).toEqual(c.at);
      for (const w of c.words) expect(e.message).toContain(w);
    });
});
