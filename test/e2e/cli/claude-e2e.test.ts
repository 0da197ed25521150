import { afterEach, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { claudeDemoYaml } from '../../../src/demo/claude-demo.js';
import { bookResponder, claudeEnv, startModelServer, type ModelServer } from '../../../src/demo/model-server.js';
import { readJournal } from '../../../src/run/journal/journal.js';
import { CLAUDE_BIN, unfaked } from '../../helpers/claude.js';
import { REPO, copyDemo, tempDir } from '../../helpers/workspace.js';

// `checkroom run --next --auto` (the built CLI, autopilot inside) drives the real Claude Code
// CLI to ✅ on a copy of the demo workspace (issue 11, "Done when"), and `status --json`
// then reports what it cost.

const CLI = join(REPO, 'dist/src/cli.js');
const servers: ModelServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

describe('checkroom run with adapter: claude-code, on the demo', () => {
  it('autopilot drives the real CLI to ✅; status --json shows the cost', async () => {
    const ws = copyDemo();
    const server = await startModelServer({ script: [], fallback: bookResponder(), lifetimeMs: 180_000 });
    servers.push(server);
    writeFileSync(join(ws, 'checkroom.yaml'), claudeDemoYaml({ bin: CLAUDE_BIN, env: { ...claudeEnv(server.url, tempDir('checkroom-claude-home-'), 0), ...unfaked() }, idleTimeout: '30s' }));
    const r = await execa(process.execPath, [CLI, 'run', ws, '--next', '--auto', '--max', '3', '-y'], { reject: false, timeout: 120_000, env: { NO_COLOR: '1' } });
    expect(r.stderr).toBe('');
    expect(r.exitCode, r.stdout).toBe(0);
    const exits = (await readJournal(ws)).events.filter((e) => e.type === 'exit');
    expect(exits.length).toBeGreaterThanOrEqual(3);
    const viaClaude = exits.filter((e) => e.type === 'exit' && e.agent !== 'archivist' && e.agent !== 'publisher');
    expect(viaClaude.length).toBeGreaterThan(0);
    for (const e of exits) expect(e.type === 'exit' && e.class).toBe('SUCCESS');
    const launches = (await readJournal(ws)).events.filter((e) => e.type === 'launch');
    for (const l of launches) {
      if (l.type !== 'launch' || !l.outputPath || l.agent === 'archivist') continue;
      expect(readFileSync(l.outputPath, 'utf8').trimEnd().split('\n').pop()).toMatch(/^<!-- [A-Z][A-Z0-9_]* -->$/);
    }
    const status = JSON.parse((await execa(process.execPath, [CLI, 'status', ws, '--json'])).stdout);
    expect(status.cost_usd).toBeCloseTo(0.0216 * viaClaude.length, 6);
    expect(status.tokens.total).toBe(3000 * viaClaude.length);
    const cell = status.cells.find((c: { unit: string; step: string }) => c.unit === viaClaude[0]!.unit && c.step === (viaClaude[0] as { step: string }).step);
    expect(cell.status).toBe('done');
    expect(cell.cost_usd).toBeCloseTo(0.0216, 6);
  }, 150_000);
});
