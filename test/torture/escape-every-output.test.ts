import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO } from '../helpers/workspace.js';
import { cacheWorkspace, settle } from '../helpers/facts-cache.js';
import { statusText } from '../helpers/status-text.js';
import { buildOperatorModel } from '../../src/operator/model.js';
import { statusJsonText } from '../../src/cli/commands/core-commands.js';
import { STATUS_CACHE_FILE } from '../../src/cli/status-cache.js';
import { jsonLine } from '../../src/socket/wire.js';
import { loadWorkspace } from '../../src/workspace.js';
import { sanitizeLine } from '../../src/text/sanitize.js';
import { EVIL, evilConfigWorkspace, HOSTILE, HOSTILE_NAMES, RAW_ANY } from './evil-workspace.js';

// Issue 16 item 2: every string from the workspace is escaped at every output, text and JSON
// alike — names from checkroom.yaml (pipeline, phases, steps, agents, units) included, and the
// format characters (ZWSP, ZWJ, BOM, soft hyphen, bidi, tags, U+2028) as well as the controls.
// JSON writes them as \uXXXX, so it parses back to the very strings the workspace holds.

const CLI = join(REPO, 'dist/src/cli.js');
const cli = (args: string[], env: NodeJS.ProcessEnv = {}) => {
  const r = spawnSync('node', [CLI, ...args], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', COLUMNS: '200', CHECKROOM_SOCKET: 'off', ...env }, input: '' });
  return { code: r.status, out: r.stdout, err: r.stderr };
};

/** 'clean', or where the first raw character is and what is around it. */
const rawAt = (text: string): string => {
  const m = RAW_ANY.exec(text);
  return m ? `raw U+${m[0].codePointAt(0)!.toString(16).padStart(4, '0')} at ${m.index}: ${JSON.stringify(text.slice(Math.max(0, m.index - 40), m.index + 10))}` : 'clean';
};

/** Every string in a parsed JSON value. */
const strings = (v: unknown, into: Set<string> = new Set()): Set<string> => {
  if (typeof v === 'string') into.add(v);
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) strings(x, into.add(k));
  return into;
};

const hasText = (v: unknown, s: string): boolean => [...strings(v)].some((x) => x.includes(s));

describe('torture: hostile config names and format characters at every output (issue 16 item 2)', () => {
  it('every command, text and --json: nothing raw on stdout or stderr; JSON round-trips the names', { timeout: 300_000 }, () => {
    const { root, unit } = evilConfigWorkspace();
    const n = HOSTILE_NAMES;
    const file = `research/${unit}-research.md`;
    const bak = `${unit}-research.md.bak.20261128-140300`;
    // [what, args, for --json: strings the parsed document must hold exactly]
    const runs: [string, string[], string[]?][] = [
      ['status', ['status', root]],
      ['status --json', ['status', root, '--json'], [n.pipeline, n.phase3, n.phase4, unit, n.unit]],
      ['status --json=pretty', ['status', root, '--json=pretty'], [n.pipeline, n.phase3, unit]],
      ['status --json --no-cache', ['status', root, '--json', '--no-cache'], [n.pipeline, n.phase3, unit]],
      ['status --json (cached)', ['status', root, '--json'], [n.pipeline, n.phase3, unit]],
      ['ui (not a terminal)', [root]],
      ['plan', ['plan', root]],
      ['plan --json', ['plan', root, '--json'], [n.unit]],
      ['partials', ['partials', root]],
      ['partials --json', ['partials', root, '--json'], [file]],
      ['checkpoint', ['checkpoint', root]],
      ['resume', ['resume', root]],
      ['recover --dry-run', ['recover', root, '--dry-run']],
      ['recover --dry-run --json', ['recover', root, '--dry-run', '--json'], []],
      ['backups', ['backups', root, file]],
      ['backups --json', ['backups', root, file, '--json'], [file]],
      ['run', ['run', root, unit, 'research', '--yes', '--force']],
      ['run --next', ['run', root, '--next', '--yes']],
      ['backups --restore --json', ['backups', root, file, '--restore', bak, '--json'], [file]],
      ['backups --restore', ['backups', root, file, '--restore', bak]],
      ['checkpoint --write', ['checkpoint', root, '--write']],
      ['resume --write', ['resume', root, '--write']],
      ['recover', ['recover', root]],
      ['recover --json', ['recover', root, '--json'], []],
      ['watch --json (no control room)', ['watch', root, '--json']],
      ['unlock', ['unlock', root, '--host', `h${HOSTILE}`]],
      ['bad usage', ['status', root, `--${HOSTILE}`]],
      ['unknown unit', ['run', root, `ch9${HOSTILE}`, 'research']],
      ['unknown step', ['run', root, 'ch01', `x${HOSTILE}`]],
      ['no workspace', ['status', join(root, HOSTILE)]],
    ];
    // Text runs that must show these names (escaped): the hostile fields really were printed.
    const shown: Record<string, string[]> = { status: [n.pipeline, n.phase3], plan: [n.unit], run: [n.agent, unit] };
    const failures: string[] = [];
    for (const [what, args, holds] of runs) {
      const r = cli(args);
      for (const name of shown[what] ?? []) if (!r.out.includes(sanitizeLine(name))) failures.push(`${what}: does not show ${sanitizeLine(name)}`);
      if (r.code !== 0 && r.code !== 1 && r.code !== 2) failures.push(`${what}: exit ${r.code}: ${r.err.slice(0, 300)}`);
      for (const [stream, text] of [['stdout', r.out], ['stderr', r.err]] as const) {
        const at = rawAt(text);
        if (at !== 'clean') failures.push(`${what} (${stream}): ${at}`);
      }
      if (!holds) continue;
      let doc: unknown;
      try {
        doc = JSON.parse(r.out);
      } catch (e) {
        failures.push(`${what}: not JSON (${(e as Error).message}): ${r.out.slice(0, 200)} ${r.err.slice(0, 300)}`);
        continue;
      }
      for (const s of holds) if (!hasText(doc, s)) failures.push(`${what}: the parsed JSON lacks ${JSON.stringify(s)}`);
    }
    expect(failures).toEqual([]);
  });

  it('config errors quoting hostile YAML are escaped on stderr, text and --json', { timeout: 240_000 }, () => {
    const { root } = evilConfigWorkspace();
    const q = (x: string) => JSON.stringify(x).replace(/[^ -~]/gu, (c) => (c.codePointAt(0)! > 0xffff ? `\\U${c.codePointAt(0)!.toString(16).padStart(8, '0')}` : `\\u${c.codePointAt(0)!.toString(16).padStart(4, '0')}`));
    const bad = [
      `phases:\n  - { id: ${q(`x${HOSTILE}`)}, name: a }\n`,
      `${q(`k${HOSTILE}`)}: 1\n`,
      `preset: ${q(`p${HOSTILE}`)}\n`,
      `steps:\n  - { id: research, depends_on: [${q(`d${HOSTILE}`)}] }\n`,
      `agents:\n  ${q(`a${HOSTILE}`)}: { command: [node], prompt: ${q(`p${HOSTILE}`)} }\n`,
    ];
    const failures: string[] = [];
    for (const yaml of bad) {
      writeFileSync(join(root, 'checkroom.yaml'), yaml);
      for (const args of [['status', root], ['status', root, '--json'], ['run', root, '--next', '--yes']]) {
        const r = cli(args);
        if (r.code !== 2) failures.push(`${yaml.trim()} ${args.slice(2).join(' ')}: exit ${r.code}`);
        const at = rawAt(r.out + r.err);
        if (at !== 'clean') failures.push(`${yaml.trim()} ${args.slice(2).join(' ')}: ${at}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it('a stored status answer planted in .checkroom/ is escaped as it is written back', { timeout: 60_000 }, () => {
    const root = cacheWorkspace();
    // The first read keeps the facts; trusted once settled, the second keeps the answer (status-cache.ts).
    expect(cli(['status', root, '--json']).code).toBe(0);
    settle(root);
    expect(cli(['status', root, '--json']).code).toBe(0);
    const file = join(root, STATUS_CACHE_FILE);
    const stored = readFileSync(file);
    // Same byte length (the header counts them): "ch0" becomes a ZWSP, one "c" a BEL.
    const at = stored.indexOf('"unit":"ch01"');
    expect(at).toBeGreaterThan(0);
    Buffer.from('\u200b', 'utf8').copy(stored, at + 8);
    stored[stored.indexOf('"unit":"ch01"', at + 20) + 8] = 0x07;
    writeFileSync(file, stored);
    const r = cli(['status', root, '--json']);
    expect(r.out).toContain('\\u200b1'); // the stored answer was the one written
    expect(rawAt(r.out + r.err)).toBe('clean');
  });

  it("the control room's status answer and watch events: the same bytes as a scan, nothing raw, lossless", async () => {
    const { root, unit } = evilConfigWorkspace();
    const state = await loadWorkspace(root);
    // With the room's forecast of the same state (docs/foresight.md); its clock, like scannedAt, is a time.
    const cold = statusJsonText(state, undefined, buildOperatorModel(state, null, Date.now()).foresight);
    const live = Buffer.concat(statusText()(state)).toString('utf8');
    const sansTime = (t: string) => t.replace(/"scannedAt":"[^"]*"/, '').replace(/"eta":\{"at":"[^"]*"/, '"eta":{');
    expect(sansTime(live)).toBe(sansTime(cold));
    expect(rawAt(cold)).toBe('clean');
    const doc = JSON.parse(cold) as { pipeline: string; phases: { name: string }[]; cells: { unit: string }[] };
    expect(doc.pipeline).toBe(HOSTILE_NAMES.pipeline);
    expect(doc.phases.map((p) => p.name)).toContain(HOSTILE_NAMES.phase3);
    expect(doc.cells.map((c) => c.unit)).toContain(unit);
    const event = { type: 'cell', unit: HOSTILE_NAMES.unit, step: EVIL, note: `\ud800${HOSTILE}\udfff` };
    const line = jsonLine(event);
    expect(rawAt(line)).toBe('clean');
    expect(JSON.parse(line)).toEqual(event);
  });
});
