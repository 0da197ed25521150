import { spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseCli } from '../cli/args.js';
import { colorEnabled, makePaint, outputWidth } from '../text/paint.js';
import { statusCommand } from '../cli/commands/core-commands.js';
import { stderrOut, textOut } from '../cli/text-out.js';
import { charsetFor, setOutputCharset } from '../text/charset.js';
import type { TextOptions } from '../text/layout.js';
import { loadControlRoom } from '../ui/entry/load.js';
import { claudeDemoScript, claudeDemoYaml } from './claude-demo.js';
import { claudeEnv, startModelServer, type ModelServer } from './model-server.js';

// `npm start`: the demo workspace, copied to a fresh temp directory (without its
// `.checkroom/` run state) so every action in the control room is safe to try; the
// repository's copy is never touched.

const DEMO = fileURLToPath(new URL('../../demo-workspace', import.meta.url));
// The devDependency's binary: users bring their own claude; the demo uses this one.
const CLAUDE = fileURLToPath(new URL('../../node_modules/.bin/claude', import.meta.url));

/** `--claude`: the real Claude Code CLI against a scripted model on 127.0.0.1. */
// Text through the escaping writers, as the CLI's (src/cli/text-out.ts).
// In the terminal's charset, as the CLI's (src/cli.ts).
setOutputCharset(charsetFor(process.env, process.argv.includes('--ascii')));
const colour = colorEnabled(process.stdout, process.env);
const out = textOut(process.stdout, colour);

async function startClaudeDemo(ws: string): Promise<ModelServer> {
  if (!existsSync(CLAUDE)) throw new Error(`--claude needs the Claude Code CLI: npm install -D @anthropic-ai/claude-code (looked for ${CLAUDE})`);
  const server = await startModelServer({ script: [], fallback: claudeDemoScript(), lifetimeMs: 4 * 3_600_000, maxRequests: 5_000 });
  const home = mkdtempSync(join(tmpdir(), 'checkroom-demo-claude-home-'));
  writeFileSync(join(ws, 'checkroom.yaml'), claudeDemoYaml({ bin: CLAUDE, env: claudeEnv(server.url, home, 0) }));
  out.write(`checkroom demo: agents are the real claude CLI; the model is scripted at ${server.url}\n`);
  return server;
}

async function main(): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'checkroom-demo-'));
  cpSync(DEMO, dir, {
    recursive: true,
    filter: (src) => !src.slice(DEMO.length).split(sep).includes('.checkroom'),
  });
  out.write(`checkroom demo: a copy of demo-workspace/ is in ${dir}\n`);
  // `npm start -- --gates`: the gate-file workflow demo (demo-workspace/gates-workflow, preset: gates).
  const args = process.argv.slice(2);
  const ws = args.includes('--gates') ? join(dir, 'gates-workflow') : dir;
  // `npm start -- --slurm`: every agent of the copy a job of the Slurm cluster the
  // environment names (SLURM_CONF); refused with the reason when squeue cannot reach one.
  if (args.includes('--slurm')) {
    const q = spawnSync('squeue', ['-h', '--me'], { encoding: 'utf8', timeout: 30_000 });
    if (q.status !== 0) throw new Error(`--slurm needs a reachable Slurm cluster (squeue: ${(q.stderr || q.error?.message || `exit ${q.status}`).trim().split('\n')[0]}); set SLURM_CONF`);
    appendFileSync(join(dir, 'checkroom.yaml'), '\n# npm start -- --slurm\nexecutor: slurm\n');
    out.write('checkroom demo: every agent runs as a Slurm job (executor: slurm)\n');
  }
  const server = args.includes('--claude') ? await startClaudeDemo(ws) : null;
  const cli = parseCli([...args.filter((a) => a !== '--gates' && a !== '--slurm' && a !== '--claude'), ws]);
  const o: TextOptions = {
    paint: makePaint(colour),
    ascii: charsetFor(process.env, cli.ascii) !== 'unicode',
    width: outputWidth(process.stdout, process.env),
  };
  if (!process.stdin.isTTY || !process.stdout.isTTY) {
    await statusCommand([ws], false, o, out);
    await server?.close();
    return 0;
  }
  const code = await (await loadControlRoom())(cli, o).finally(() => server?.close());
  out.write(`checkroom demo: the workspace copy stays in ${dir}\n`);
  return code;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    stderrOut.write(`checkroom: ${(err as Error)?.message ?? String(err)}\n`);
    process.exitCode = 1;
  },
);
