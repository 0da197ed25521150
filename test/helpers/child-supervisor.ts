import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { REPO } from './workspace.js';

// A checkroom process for the tests that kill one (kill -9, leave running, take-over): a node
// child running the built supervisor from dist/ (built by `npm test`) on a temp workspace.
// One copy of its script header, so a module that moves in src/ is fixed here once.

const DIST = join(REPO, 'dist', 'src');

/** The built supervisor: tests check it exists before they spawn a child that imports it. */
export const DIST_SUPERVISOR = join(DIST, 'run', 'supervisor', 'supervisor.js');

/**
 * A child script that opens the built supervisor as `s` on the workspace its first argument
 * names (`root`), then runs `body`.
 */
export const supervisorScript = (body: string): string => `
import { openSupervisor } from ${JSON.stringify(DIST_SUPERVISOR)};
import { loadConfig } from ${JSON.stringify(join(DIST, 'pipeline', 'config', 'config.js'))};
const root = process.argv[2];
const s = await openSupervisor({ root, config: await loadConfig(root) });
${body}`;

/**
 * An agent (argv: output, marker) that prints one line, then only writes: `sections` sections
 * `ms` apart and its marker. After a kill -9 nobody holds its stdout pipe, so it must not print.
 */
export const quietAgentScript = (sections: number, ms: number): string => `
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
const [out, marker] = process.argv.slice(2);
process.stdout.write('starting\\n');
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, '');
for (let i = 1; i <= ${sections}; i++) {
  await new Promise((r) => setTimeout(r, ${ms}));
  appendFileSync(out, '## Section ' + i + '\\n\\n' + 'The pipeline survives its supervisor. '.repeat(8) + '\\n\\n');
}
appendFileSync(out, '<!-- ' + marker + ' -->\\n');
`;

export interface Child {
  child: ChildProcess;
  /** All it printed so far, stdout and stderr. */
  text(): string;
  /** What it printed on stdout only. */
  out(): string;
}

const children: ChildProcess[] = [];

/** Runs `node script ...args`, collecting what it prints; killChildren() ends it. */
export function startChild(script: string, args: string[], onLine?: (line: string) => void): Child {
  const child = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: process.env });
  children.push(child);
  let all = '';
  let out = '';
  let buf = '';
  child.stdout!.on('data', (d: Buffer) => {
    all += d.toString();
    out += d.toString();
    buf += d.toString();
    const lines = buf.split('\n');
    buf = lines.pop()!;
    for (const l of lines) onLine?.(l);
  });
  child.stderr!.on('data', (d: Buffer) => (all += d.toString()));
  return { child, text: () => all, out: () => out };
}

/** kill -9, resolved once the child is gone. */
export async function kill9(child: ChildProcess): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    const gone = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await gone;
  }
}

/** For afterEach: kill -9 every child startChild started that still runs. */
export async function killChildren(): Promise<void> {
  for (const c of children.splice(0)) await kill9(c);
}

/** Resolves once the child has printed `text`; rejects if it exits first. */
export const printed = (c: Child, text: string): Promise<void> =>
  new Promise<void>((resolve, reject) => {
    if (c.text().includes(text)) return resolve();
    c.child.stdout!.on('data', () => {
      if (c.text().includes(text)) resolve();
    });
    c.child.on('exit', (code) => reject(new Error(`the checkroom process exited early (${code}): ${c.text()}`)));
  });
