import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateWorkspace } from './generate.js';
import { median } from './measure.js';
import { discoverUnitsOnDisk } from '../../src/scan/units.js';
import { loadConfig } from '../../src/pipeline/config/config.js';
import { compilePattern } from '../../src/pipeline/safe-pattern.js';

// Issue 16 item 3: config patterns run on RE2 (re2js) unless pattern-shape.ts proves V8
// linear for them. What that choice is worth: unit discovery (every file name against its
// steps' patterns) with the same units, once with a pattern V8 is given (`ch\d{2,N}`) and
// once with one RE2 runs (`ch\d{2,N}|zzzz`, the same ids), alternating rounds, median.
// Only when named: `CHECKROOM_BENCH_ONLY=pattern`.

export async function patternBench(base: string, files: number, lines: string[]): Promise<void> {
  const src = generateWorkspace(join(base, `book-${files}`), files);
  // A copy of checkroom.yaml is rewritten per variant: the shared workspace stays as generated.
  const dir = join(base, `pattern-${files}`);
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true });
  const digits = Math.max(2, String(Math.ceil(files / 10)).length);
  const variants: Record<string, string> = { v8: `ch\\d{2,${digits}}`, re2: `ch\\d{2,${digits}}|zzzz` };
  const ms: Record<string, number[]> = { v8: [], re2: [] };
  const units: Record<string, number> = {};
  for (let round = 0; round < 7; round++) {
    for (const [k, p] of Object.entries(variants)) {
      writeFileSync(join(dir, 'checkroom.yaml'), `units:\n  pattern: '${p}'\n`);
      const cfg = await loadConfig(dir);
      const t = process.hrtime.bigint();
      units[k] = discoverUnitsOnDisk(src, cfg.pipeline).size;
      ms[k].push(Number(process.hrtime.bigint() - t) / 1e6);
    }
  }
  const engine = (p: string): string => compilePattern(`^(?:${p})$`).engine;
  lines.push(`## Config patterns: unit discovery at ${files} files (median of 7, alternating)`, '');
  lines.push('| pattern | engine | units | ms | / V8 |', '|---|---|---:|---:|---:|');
  const v8 = median(ms.v8);
  for (const [k, p] of Object.entries(variants)) {
    lines.push(`| \`${p.replaceAll('|', '\\|')}\` | ${engine(p)} | ${units[k]} | ${median(ms[k]).toFixed(0)} | ${(median(ms[k]) / v8).toFixed(2)} |`);
  }
  lines.push('');
}
