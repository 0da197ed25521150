import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { ConfigError, loadConfig } from '../../../src/pipeline/config/config.js';
import { CONFIG_CACHE_FILE } from '../../../src/pipeline/config/cache.js';
import { copyDemo, REPO, tempDir, writeFiles } from '../../helpers/workspace.js';

// Issue 10 item 2: checkroom.yaml parsed last time is not parsed again (yaml and zod are a
// third of grep's time at 50k files) — and never trusted for another text or another parser.

const CLI = join(REPO, 'dist/src/cli.js');
const cli = (...args: string[]) => spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', env: { ...process.env, CHECKROOM_SOCKET: 'off' } });

/** The cache on disk with its config's pipeline renamed: a lie only a cached read would tell. */
function plant(root: string, change: (stored: Record<string, unknown>) => void = () => {}): void {
  const path = join(root, CONFIG_CACHE_FILE);
  const stored = JSON.parse(readFileSync(path, 'utf8'));
  stored.config.pipeline.name = 'planted';
  change(stored);
  writeFileSync(path, JSON.stringify(stored));
}

const WRITE = { write: true };

describe('config cache', () => {
  it('the config parsed from the same text is reused; another text, or another parser, is parsed again', async () => {
    const root = copyDemo();
    const fresh = await loadConfig(root, WRITE);
    expect(existsSync(join(root, CONFIG_CACHE_FILE))).toBe(true);
    plant(root);
    expect((await loadConfig(root, WRITE)).pipeline.name).toBe('planted');
    // Without the cache (--no-cache) the file is parsed.
    expect((await loadConfig(root)).pipeline.name).toBe(fresh.pipeline.name);
    plant(root, (s) => (s.parser = `${s.parser}x`));
    expect((await loadConfig(root, WRITE)).pipeline.name).toBe(fresh.pipeline.name);
    plant(root);
    appendFileSync(join(root, 'checkroom.yaml'), '\n# an edit\n');
    expect((await loadConfig(root, WRITE)).pipeline.name).toBe(fresh.pipeline.name);
    writeFileSync(join(root, CONFIG_CACHE_FILE), '{"v":1,"config":');
    expect((await loadConfig(root, WRITE)).pipeline.name).toBe(fresh.pipeline.name);
  });

  it('holds exactly the config a fresh parse gives (agents, limits, steps of the demo)', async () => {
    const root = copyDemo();
    const parsed = await loadConfig(root, WRITE);
    const stored = JSON.parse(readFileSync(join(root, CONFIG_CACHE_FILE), 'utf8')).config;
    expect(isDeepStrictEqual(stored, parsed)).toBe(true);
    expect(Object.keys(parsed.agents).length).toBeGreaterThan(0);
  });

  it('a config that does not parse is never cached, and --readonly and --no-cache write none', async () => {
    const bad = tempDir('checkroom-cfgcache-');
    writeFiles(bad, { 'checkroom.yaml': 'steps:\n  - id: draft\n    dependson: [research]\n' });
    await expect(loadConfig(bad, WRITE)).rejects.toBeInstanceOf(ConfigError);
    expect(existsSync(join(bad, CONFIG_CACHE_FILE))).toBe(false);
    const root = copyDemo();
    expect(cli('status', root, '--json', '--readonly').status).toBe(0);
    expect(cli('status', root, '--json', '--no-cache').status).toBe(0);
    expect(existsSync(join(root, CONFIG_CACHE_FILE))).toBe(false);
    expect(cli('status', root, '--json').status).toBe(0);
    expect(existsSync(join(root, CONFIG_CACHE_FILE))).toBe(true);
  });
});
