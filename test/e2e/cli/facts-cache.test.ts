import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../../src/pipeline/config/config.js';
import { scanFiles } from '../../../src/scan/scan.js';
import { FACTS_CACHE_FILE, FactsCache, factsSignature } from '../../../src/scan/cached-facts.js';
import { decodeFactsCache, encodeFactsCache, FACTS_CACHE_VERSION } from '../../../src/scan/facts-cache.js';
import { pathOf, REPO } from '../../helpers/workspace.js';
import { cacheWorkspace, replaceEntry, settle, statusOf, UNITS } from '../../helpers/facts-cache.js';

// Issue 10 item 1: the facts cache may only ever save reads; it never changes a verdict.

const CLI = join(REPO, 'dist/src/cli.js');

async function scanWithCache(root: string, write = true) {
  const cfg = await loadConfig(root);
  const cache = FactsCache.open(root, factsSignature(root, cfg.pipeline), { write });
  const files = scanFiles(root, cfg.pipeline, UNITS, cache);
  await cache.save();
  return { files, stats: cache.stats };
}

const cli = (...args: string[]) => spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8' });
const cellOf = (out: string, unit: string, step: string) => JSON.parse(out).cells.find((c: { unit: string; step: string }) => c.unit === unit && c.step === step);

describe('facts cache', () => {
  it('a repeated scan validates every artifact by its stat and reads only what changed', async () => {
    const root = cacheWorkspace();
    const first = await scanWithCache(root);
    expect(first.stats).toMatchObject({ hits: 0, reads: 7 });
    settle(root);
    const again = await scanWithCache(root);
    expect(again.stats).toMatchObject({ hits: 7, reads: 0 });
    writeFileSync(join(root, pathOf('ch02', 'draft')), 'cut short');
    const third = await scanWithCache(root);
    expect(third.stats).toMatchObject({ hits: 6, reads: 1 });
    expect(third.files.get(pathOf('ch02', 'draft'))).toMatchObject({ marker: false, chars: 9 });
  });

  it('re-reads an entry whose stat key matches when it is not older than the cache write (racily clean)', async () => {
    const root = cacheWorkspace();
    const rel = pathOf('ch01', 'draft');
    await scanWithCache(root);
    // A same-size rewrite in the same timestamp tick as the read keeps the stat key. Made
    // exactly: the cache is rewritten with the new file's key but the old facts.
    const before = readFileSync(join(root, rel), 'utf8');
    writeFileSync(join(root, rel), before.replace('DRAFT_COMPLETE', 'DRAFT_COMPLETX'));
    const cfg = await loadConfig(root);
    const sig = factsSignature(root, cfg.pipeline);
    const data = decodeFactsCache(readFileSync(join(root, FACTS_CACHE_FILE)), sig)!;
    writeFileSync(join(root, FACTS_CACHE_FILE), encodeFactsCache(replaceEntry(data, rel, { key: statSync(join(root, rel)) })));
    const racy = await scanWithCache(root);
    expect(racy.files.get(rel)!.marker).toBe(false);
    expect(await statusOf(root, true)).toBe(await statusOf(root, false));
  });

  it('detects a corrupt, truncated, foreign-version or foreign-pipeline cache and rebuilds it', async () => {
    const root = cacheWorkspace();
    const path = join(root, FACTS_CACHE_FILE);
    const cold = await statusOf(root, false);
    await scanWithCache(root);
    const good = readFileSync(path);
    const flipped = Buffer.from(good);
    flipped[flipped.length - 20] ^= 1;
    const bad: [string, Buffer][] = [
      ['garbage', Buffer.from('not a cache at all')],
      ['truncated', good.subarray(0, good.length - 7)],
      ['a flipped byte', flipped],
      ['another version', Buffer.from(good.toString('latin1').replace(`checkroom-facts ${FACTS_CACHE_VERSION} `, `checkroom-facts ${FACTS_CACHE_VERSION + 1} `), 'latin1')],
      ['empty', Buffer.alloc(0)],
    ];
    for (const [what, bytes] of bad) {
      writeFileSync(path, bytes);
      const r = await scanWithCache(root);
      expect(r.stats.hits, what).toBe(0);
      expect(r.stats.rejected, what).not.toBeNull();
      expect(await statusOf(root, true), what).toBe(cold);
      // Rebuilt: whole again, and trusted once settled.
      settle(root);
      expect((await scanWithCache(root)).stats.hits, what).toBe(7);
    }
    // Another workspace's or pipeline's cache is foreign.
    const cfg = await loadConfig(root);
    expect(decodeFactsCache(readFileSync(path), factsSignature('/elsewhere', cfg.pipeline))).toBeNull();
  });

  it('`status` keeps the cache; --no-cache reads everything and leaves it alone; --readonly never writes it', () => {
    const root = cacheWorkspace();
    const path = join(root, FACTS_CACHE_FILE);
    expect(cli('status', root, '--json', '--readonly').status).toBe(0);
    expect(() => statSync(path)).toThrow();
    expect(cli('status', root, '--json', '--no-cache').status).toBe(0);
    expect(() => statSync(path)).toThrow();
    const first = cli('status', root, '--json');
    expect(first.status).toBe(0);
    expect(statSync(path).isFile()).toBe(true);
    // A lie planted in a settled cache under the file's real key: a cached read believes it
    // (the stat is all it checks), --no-cache reads the file.
    const rel = pathOf('ch03', 'r1');
    const data = decodeFactsCache(readFileSync(path), JSON.parse(readFileSync(path, 'utf8').split('\n')[1]).sig)!;
    writeFileSync(path, encodeFactsCache(replaceEntry(data, rel, { facts: { marker: true } })));
    settle(root);
    const planted = readFileSync(path);
    expect(cellOf(cli('status', root, '--json').stdout, 'ch03', 'r1').status).toBe('done');
    expect(cellOf(cli('status', root, '--json', '--no-cache').stdout, 'ch03', 'r1').status).toBe('partial');
    expect(readFileSync(path).equals(planted)).toBe(true);
  });

  it('--json is compact and --json=pretty indents the same value', () => {
    const root = cacheWorkspace();
    const compact = cli('status', root, '--json', '--no-cache').stdout;
    const pretty = cli('status', root, '--json=pretty', '--no-cache').stdout;
    expect(compact.trimEnd().split('\n')).toHaveLength(1);
    expect(pretty).toContain('\n  "version": 1,\n');
    const strip = (s: string) => {
      const j = JSON.parse(s);
      delete j.scannedAt;
      return j;
    };
    expect(strip(compact)).toEqual(strip(pretty));
    expect(cli('status', root, '--json=loud').status).toBe(2);
  });
});
