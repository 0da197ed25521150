import { afterEach, describe, expect, it, vi } from 'vitest';
import { readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cacheWorkspace, settle, statusOf, statusTextOf } from '../../helpers/facts-cache.js';
import { pathOf } from '../../helpers/workspace.js';

// What the clock does to a cached and a cold `status --json` (facts-cache-property.test.ts
// compares them). Only the process clock is faked (Date); the files keep the file system's.
//
// The property's flake (failed under load, passed alone): it compared a cached read and a
// cold read made one after the other, blanking only `scannedAt`. The forecast's clock is
// the minute (`eta.at`), so a pair that straddled a minute differed there and nowhere else;
// under load a pair is slow enough to straddle one in a run of 100 cases. Replayed under
// load with that comparison, both failures differed only in `eta.at` (16:22 against 16:23);
// with it blanked, 42 runs passed. The second test rules out the other suspect, a verdict
// made from a file's age: a month between the reads changes nothing but the two readings.

const MINUTE_END = Date.parse('2026-12-02T16:00:59.999Z');

/** The printed text with `scannedAt` blanked: what the property compared before it blanked `eta.at`. */
const withForecastClock = async (root: string, cached: boolean): Promise<string> => (await statusTextOf(root, cached, 'keep')).replace(/"scannedAt":"[^"]*"/, '"scannedAt":""');

const etaAt = (text: string): string | undefined => /"eta":\{"at":"([^"]*)"/.exec(text)?.[1];

describe('facts cache: the clock between a cached and a cold read', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('reads a minute apart differ in the forecast clock (eta.at) and in nothing else', async () => {
    const root = cacheWorkspace();
    try {
      await statusTextOf(root, true); // the facts cache exists: the first read below goes through it
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(MINUTE_END);
      const cached = await withForecastClock(root, true);
      vi.setSystemTime(MINUTE_END + 1);
      const cold = await withForecastClock(root, false);
      expect([etaAt(cached), etaAt(cold)]).toEqual(['2026-12-02T16:00:00.000Z', '2026-12-02T16:01:00.000Z']);
      expect(cached).not.toBe(cold);
      const blank = (t: string): string => t.replace(/"eta":\{"at":"[^"]*"/, '"eta":{"at":""');
      expect(blank(cached)).toBe(blank(cold));
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('no verdict reads the clock: a month between the reads changes only scannedAt and eta.at', async () => {
    // Files written just now, a half-product, a settled cache and a same-size rewrite with its
    // mtime put back: any verdict from a file's age ("recent", "stale", "still writing") would
    // differ between a read at their birth and one a month on.
    const root = cacheWorkspace();
    try {
      const now = Date.now();
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(now);
      await statusTextOf(root, true);
      settle(root);
      const draft = join(root, pathOf('ch01', 'draft'));
      const st = statSync(draft);
      writeFileSync(draft, readFileSync(draft, 'utf8').replace('DRAFT_COMPLETE', 'DRAFT_COMPLETX'));
      utimesSync(draft, st.atime, st.mtime);
      const cachedText = await statusTextOf(root, true); // the settled entries trusted, the draft read again
      const cachedJson = await statusOf(root, true);
      vi.setSystemTime(now + 30 * 86_400_000);
      expect(await statusTextOf(root, false)).toBe(cachedText);
      expect(await statusOf(root, false)).toBe(cachedJson);
      expect(cachedJson).toContain('"unit":"ch01","step":"draft","batch":null,"path":"drafts/ch01-draft.md","status":"partial"');
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
