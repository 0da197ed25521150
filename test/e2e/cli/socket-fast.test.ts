import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { statusJsonDir } from '../../../src/socket/client-fast.js';
import { REPO } from '../../helpers/workspace.js';

// The bin's front (issue 10 goal: status --json via the socket ≤ 0.3× grep): only exactly
// `status --json [dir]` is answered before the CLI loads; whatever else goes to the full CLI.
// The answer itself is proven equal to a scan through the built bin in socket.test.ts.

describe('the status --json front', () => {
  it('takes exactly status --json [dir], in any order', () => {
    expect(statusJsonDir(['status', '--json'])).toBe('.');
    expect(statusJsonDir(['status', '--json', 'ws'])).toBe('ws');
    expect(statusJsonDir(['--json', 'status', 'ws'])).toBe('ws');
    expect(statusJsonDir(['status', 'ws', '--json'])).toBe('ws');
  });

  it('leaves everything else to the full CLI', () => {
    for (const argv of [
      ['status'],
      ['status', 'ws'],
      ['plan', '--json'],
      ['ws', 'status', '--json'],
      ['status', '--json', 'a', 'b'],
      ['status', '--json', '--json'],
      ['status', '--json', '--no-cache'],
      ['status', '--json=pretty'],
      ['status', '--json', '--', '-x'],
      ['--help'],
      [],
    ])
      expect(statusJsonDir(argv), argv.join(' ')).toBeNull();
  });

  it('the bundle entry loads the front alone: no yaml, zod, ink or react before the socket is asked', () => {
    const bin = join(REPO, JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')).bin.checkroom);
    const dir = join(bin, '..');
    const seen = new Set<string>();
    const reach = (file: string): void => {
      if (seen.has(file)) return;
      seen.add(file);
      // Static imports only: the CLI behind the front is a dynamic import().
      for (const m of readFileSync(join(dir, file), 'utf8').matchAll(/^(?:import|export)[^'"()]*?from\s*["'](\.\/[^"']+)["']|^import\s*["'](\.\/[^"']+)["']/gm)) reach((m[1] ?? m[2]).slice(2));
    };
    reach(bin.slice(dir.length + 1));
    const text = [...seen].map((f) => readFileSync(join(dir, f), 'utf8')).join('\n');
    expect(text).toContain('statusJsonDir');
    for (const heavy of ['node_modules/yaml', 'node_modules/zod', 'node_modules/ink', 'node_modules/react']) expect(text, heavy).not.toContain(heavy);
    expect(text.length).toBeLessThan(64 * 1024);
  });
});
