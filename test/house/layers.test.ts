import { describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO, tempDir, writeFiles } from '../helpers/workspace.js';

// The house keeps its shape (docs/architecture.md): dependency-cruiser, with the rules of
// .dependency-cruiser.cjs, over the real tree — imports run only downward, src/cli/ is the
// command line's edge, no runtime cycle. `npm run lint` runs the same check in CI; this one
// makes `npm test` guard the layers too. The second test proves the rules can fail at all.

const DEPCRUISE = join(REPO, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');
const CONFIG = join(REPO, '.dependency-cruiser.cjs');

interface Violation {
  from: string;
  to: string;
  rule: { name: string };
  cycle?: { name: string }[];
}

/** The violations depcruise finds under `dirs` of `cwd`, read from its JSON report. */
async function violations(cwd: string, dirs: string[]): Promise<Violation[]> {
  const r = await execa('node', [DEPCRUISE, ...dirs, '--config', CONFIG, '--output-type', 'json'], { cwd, reject: false });
  expect(r.stderr).toBe('');
  const report = JSON.parse(r.stdout) as { summary: { violations: Violation[]; totalCruised: number } };
  expect(report.summary.totalCruised).toBeGreaterThan(0);
  return report.summary.violations;
}

const said = (v: Violation): string => `${v.rule.name}: ${v.from} -> ${v.cycle ? v.cycle.map((c) => c.name).join(' -> ') : v.to}`;

describe('layers', () => {
  it('imports run only downward, with no cycle and nothing below reaching into src/cli/', async () => {
    const found = await violations(REPO, ['src', 'components', 'hooks']);
    expect(found.map(said)).toEqual([]);
  }, 120_000);

  it('the same rules flag the domain importing the UI layer, the UI layer importing a hook, a component importing src/cli/, and a cycle', async () => {
    const dir = tempDir('checkroom-layers-');
    copyFileSync(join(REPO, 'tsconfig.json'), join(dir, 'tsconfig.json'));
    writeFiles(dir, {
      'src/cli/text.ts': 'export const fit = (s: string): string => s;\n',
      'src/ui/store/a.ts': "import { b } from './b.js';\nexport const a = (): number => b() + 1;\n",
      'src/ui/store/b.ts': "import { a } from './a.js';\nexport const b = (): number => (Math.random() > 2 ? a() : 0);\n",
      'src/ui/store/up.ts': "import { useThing } from '../../../hooks/use-thing.js';\nexport const up = useThing;\n",
      'src/plan/peek.ts': "import { a } from '../ui/store/a.js';\nexport const peek = a;\n",
      'src/ui/entry/entry.ts': "import { useThing } from '../../../hooks/use-thing.js';\nimport { fit } from '../../cli/text.js';\nexport const go = (): string => fit(String(useThing()));\n",
      'hooks/use-thing.ts': 'export const useThing = (): number => 1;\n',
      'components/View.tsx': "import { fit } from '../src/cli/text.js';\nexport const View = (): string => fit('x');\n",
    });
    const found = await violations(dir, ['src', 'components', 'hooks']);
    const layers = found.filter((v) => v.rule.name !== 'no-cycle').map((v) => `${v.rule.name} ${v.from}`);
    // The entry composes every layer: it breaks no rule.
    expect(layers.sort()).toEqual(['cli-is-an-edge components/View.tsx', 'domain-not-up src/plan/peek.ts', 'ui-state-not-up src/ui/store/up.ts']);
    // A cycle is reported once, from whichever of its modules depcruise met first.
    const cycles = found.filter((v) => v.rule.name === 'no-cycle');
    expect(cycles.map((v) => (v.cycle ?? []).map((c) => c.name).sort())).toEqual([['src/ui/store/a.ts', 'src/ui/store/b.ts']]);
  }, 120_000);
});
