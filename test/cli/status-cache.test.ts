import { afterEach, describe, expect, it } from 'vitest';
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { statusCommand } from '../../src/cli/commands/core-commands.js';
import { STATUS_CACHE_FILE } from '../../src/cli/status-cache.js';
import Database from 'better-sqlite3';
import { copyDemo, doneFile, pathOf, prose } from '../helpers/workspace.js';
import { cacheWorkspace, settle } from '../helpers/facts-cache.js';

// Issue 10 (warm `status --json` ≤ 1.0× grep): the last answer is reused only while every
// input is the same. Each case plants a lie in the kept answer (a unit renamed, scannedAt in
// the year 2000), proves the lie is served while nothing changed, then makes ONE change of
// one input and expects exactly the answer of a full read (--no-cache), lie gone.

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

/** `checkroom status --json` as printed; `cached`: through the facts and status caches (a plain status), else --no-cache. */
async function statusText(root: string, cached: boolean): Promise<string> {
  const parts: string[] = [];
  await statusCommand(
    [root],
    true,
    { paint: (_k: string, s: string) => s, width: 80 } as never,
    { write: (s) => parts.push(s) },
    cached ? { cache: { write: true } } : {},
  );
  return parts.join('');
}

// The forecast's clock reading is a time like scannedAt (docs/foresight.md): blanked too.
const sansTime = (json: string): string => json.replace(/"scannedAt":"[^"]*"/, '"scannedAt":""').replace(/"eta":\{"at":"[^"]*"/, '"eta":{"at":""');
const LIE_AT = '2000-01-01T00:00:00.000Z';

/** A workspace (the facts-cache one, or `root`) whose kept answer is a planted lie, served as long as nothing changes. */
async function lyingWorkspace(root = cacheWorkspace()): Promise<string> {
  roots.push(root);
  // The answer's key holds the forecast's clock to the minute: the reads below that must give
  // the same key start with room left in the minute (CI's faketime pass read across 14:01:00
  // once, a miss where a hit was asserted).
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 20_000) await new Promise((r) => setTimeout(r, left + 100));
  await statusText(root, true); // builds the facts cache
  settle(root); // its entries trusted: the next read takes every fact from it
  await statusText(root, true); // every fact cached: the answer is kept
  const file = join(root, STATUS_CACHE_FILE);
  expect(existsSync(file)).toBe(true);
  // Same length, so only the key can tell: ch01 → chXX everywhere, scannedAt in 2000.
  const lie = readFileSync(file, 'latin1')
    .replaceAll('"ch01"', '"chXX"')
    .replace(/("scannedAt":")[^"]{24}/, `$1${LIE_AT}`);
  writeFileSync(file, lie, 'latin1');
  const served = await statusText(root, true);
  expect(served).toContain('"chXX"');
  // The stored time is never served: scannedAt is this read's.
  expect(served).not.toContain(LIE_AT);
  return root;
}

/** Until the file system's clock has moved past `ns`: a later write then has another ctime. */
function nextTick(root: string, ns: bigint): void {
  const probe = join(root, '.tick');
  for (let i = 0; i < 1_000_000; i++) {
    writeFileSync(probe, String(i));
    if (statSync(probe, { bigint: true }).ctimeNs > ns) return;
  }
}

const agentFacts = (cost: number) =>
  JSON.stringify({
    v: 1,
    type: 'agent_facts',
    at: 1,
    runId: 'r1',
    unit: 'ch02',
    step: 'draft',
    agent: 'writer',
    sessionId: 's',
    costUsd: cost,
    tokensIn: 10,
    tokensOut: 5,
    cacheRead: 0,
    cacheWrite: 0,
    apiRetries: 0,
    cutMidTool: false,
  }) + '\n';

const changes: [string, (root: string) => void][] = [
  [
    'an artifact rewritten to the same size, its mtime put back (one mtime tick)',
    (root) => {
      const abs = join(root, pathOf('ch03', 'r1'));
      const st = statSync(abs, { bigint: true });
      nextTick(root, st.ctimeNs);
      // The half-product's last line becomes its marker, byte for byte as long.
      const tail = 'The example on line 12 does not compile because the';
      const marker = '<!-- R1_CODE_REVIEW_COMPLETE -->';
      writeFileSync(abs, readFileSync(abs, 'utf8').replace(tail, `${'A'.repeat(tail.length - marker.length - 1)}\n${marker}`));
      expect(statSync(abs).size).toBe(Number(st.size));
      utimesSync(abs, statSync(abs).atime, new Date(Number(st.mtimeMs)));
    },
  ],
  ['a new artifact', (root) => writeFileSync(join(root, doneFile('ch02', 'r1')[0]), doneFile('ch02', 'r1')[1])],
  ['a new unit on disk', (root) => writeFileSync(join(root, doneFile('ch04', 'research')[0]), doneFile('ch04', 'research')[1])],
  ['a removed artifact', (root) => rmSync(join(root, pathOf('ch02', 'draft')))],
  [
    'checkpoint.md written',
    (root) =>
      writeFileSync(join(root, 'checkpoint.md'), `# Checkpoint\n\n| unit | research | draft |\n|---|---|---|\n| ch01 | done | done |\n| ch05 | done | - |\n`),
  ],
  ['checkroom.yaml written', (root) => writeFileSync(join(root, 'checkroom.yaml'), `units:\n  list: [ch01, ch02]\n`)],
  [
    'a journal event that costs money',
    (root) => {
      mkdirSync(join(root, '.checkroom'), { recursive: true });
      appendFileSync(join(root, '.checkroom', 'journal.jsonl'), agentFacts(0.25));
    },
  ],
  ['a global evidence file', (root) => writeFileSync(join(root, 'outline-final.md'), `# Outline\n\n${prose(200)}\n`)],
  [
    // Issue 17 item 3: no file changed, but the journal now says ch03 r1's writer was cancelled
    // after its last write: the verdict's reason is the cut's, so the kept answer is stale.
    'a journal exit that cancelled the writer of a half-product',
    (root) => {
      mkdirSync(join(root, '.checkroom'), { recursive: true });
      const at = statSync(join(root, pathOf('ch03', 'r1'))).mtimeMs + 1000;
      const launch = { v: 1, type: 'launch', at: at - 500, runId: 'r7', unit: 'ch03', step: 'r1', agent: 'reviewer', attempt: 1, argv: ['x'], cwd: root, logPath: join(root, 'x.log'), pid: null, procStart: null, outputPath: join(root, pathOf('ch03', 'r1')) };
      const exit = { v: 1, type: 'exit', at, runId: 'r7', unit: 'ch03', step: 'r1', agent: 'reviewer', exitCode: null, signal: 'SIGTERM', class: 'CANCELLED', markerFound: false, cmdFp: '', errFp: '', keywords: [], errorTail: [], cancelledBy: 'shutdown', durationMs: 500 };
      appendFileSync(join(root, '.checkroom', 'journal.jsonl'), `${JSON.stringify(launch)}\n${JSON.stringify(exit)}\n`);
    },
  ],
  [
    // Issue 18 items 1-2: no file changed and nothing spent, but the journal now shows a run in
    // flight: a scan counts it running and takes its cell out of the plan, as the room does.
    'a journal launch (a run in flight, nothing spent)',
    (root) => {
      mkdirSync(join(root, '.checkroom'), { recursive: true });
      const launch = { v: 1, type: 'launch', at: 1000, runId: 'r8', unit: 'ch02', step: 'r1', agent: 'reviewer', attempt: 1, argv: ['x'], cwd: root, logPath: join(root, 'x.log'), pid: null, procStart: null, outputPath: join(root, pathOf('ch02', 'r1')) };
      appendFileSync(join(root, '.checkroom', 'journal.jsonl'), `${JSON.stringify(launch)}\n`);
    },
  ],
];

describe('status cache: the last answer, only while every input is the same', () => {
  it.each(changes)('%s: the answer is a full read again', async (_what, change) => {
    const root = await lyingWorkspace();
    change(root);
    const after = await statusText(root, true);
    expect(after).not.toContain('"chXX"');
    expect(sansTime(after)).toBe(sansTime(await statusText(root, false)));
    if (_what.startsWith('a journal exit')) expect(after).toContain('cut when its writer was cancelled at');
  });

  it('a named skip journalled (docs/redrive.md): no file, run, spend or hold changed, but the answer says it', async () => {
    const root = cacheWorkspace();
    mkdirSync(join(root, '.checkroom'), { recursive: true });
    const line = (e: object) => appendFileSync(join(root, '.checkroom', 'journal.jsonl'), `${JSON.stringify({ v: 1, at: 1000, ...e })}\n`);
    // A journal already there: the skip below is its only change.
    line({ type: 'decision', kind: 'ack_alarms' });
    await lyingWorkspace(root);
    line({ type: 'bulk_action', id: 'bulk-skip-1', name: 'night', action: 'skip', filter: 'marked', cells: [{ unit: 'ch02', step: 'r1' }] });
    const after = await statusText(root, true);
    expect(after).not.toContain('"chXX"');
    expect(after).toContain('"words":"redrive night: 1 skipped"');
    expect(sansTime(after)).toBe(sansTime(await statusText(root, false)));
  });

  it('the todo table changed (the demo workspace): the answer is a full read again', async () => {
    const root = await lyingWorkspace(copyDemo());
    const db = new Database(join(root, 'todos.db'));
    db.prepare(`UPDATE todos SET status = 'pending' WHERE id = 'ch01-draft'`).run();
    db.close();
    const after = await statusText(root, true);
    expect(after).not.toContain('"chXX"');
    expect(sansTime(after)).toBe(sansTime(await statusText(root, false)));
  });

  it('a file changed within the racy window keeps every answer derived', async () => {
    const root = await lyingWorkspace();
    // Rewritten now: its key is new, and from now on it is racy, read on every status.
    writeFileSync(join(root, pathOf('ch01', 'draft')), doneFile('ch01', 'draft', `# changed\n\n${prose(500)}`)[1]);
    for (let i = 0; i < 2; i++) {
      const again = await statusText(root, true);
      expect(again).not.toContain('"chXX"');
      expect(sansTime(again)).toBe(sansTime(await statusText(root, false)));
    }
  });

  it('a torn or foreign status cache is a miss, never an answer', async () => {
    const root = await lyingWorkspace();
    const file = join(root, STATUS_CACHE_FILE);
    writeFileSync(file, readFileSync(file).subarray(0, 200));
    const torn = await statusText(root, true);
    expect(torn).not.toContain('"chXX"');
    expect(sansTime(torn)).toBe(sansTime(await statusText(root, false)));
  });

  it('--readonly reads it and writes none; --no-cache neither reads nor writes it', async () => {
    const root = cacheWorkspace();
    roots.push(root);
    await statusText(root, false);
    expect(existsSync(join(root, STATUS_CACHE_FILE))).toBe(false);
    await statusText(root, true);
    settle(root);
    const parts: string[] = [];
    await statusCommand([root], true, {} as never, { write: (s) => parts.push(s) }, { cache: { write: false } });
    expect(existsSync(join(root, STATUS_CACHE_FILE))).toBe(false);
  });
});
