#!/usr/bin/env node
// The demo's agent: writes realistic markdown for one step of the book pipeline, slowly and
// in place (so the control room shows the file growing), then appends the completion
// marker as its LAST act (DOMAIN.md section 2). Faults are injected deterministically from
// faults.json so every recovery path of DOMAIN.md sections 8–9 can be watched live.
// No dependencies: it must run with a bare `node`.
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

const parseArgs = (argv) => {
  const out = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      if (eq > 0) out[a.slice(2, eq)] = a.slice(eq + 1);
      else out[a.slice(2)] = argv[++i] ?? '';
    }
  }
  return out;
};

const args = parseArgs(process.argv.slice(2));
const unit = args.unit ?? 'ch01';
const step = args.step ?? 'draft';
const attempt = Number(args.attempt ?? 1) || 1;
const marker = args.marker ?? '';
const workspace = resolve(args.workspace ?? process.cwd());
const output = args.output ? resolve(args.output) : null;
const speed = Math.max(0.01, Number(args.speed ?? 1) || 1) * Math.max(0.01, Number(process.env.CHECKROOM_FAKE_SPEED ?? 1) || 1);

const ROLES = { research: 'researcher', draft: 'writer', r1: 'reviewer', r2: 'reviewer', r3: 'reviewer', review: 'editor', panel: 'panel', memory: 'archivist', final: 'editor', html: 'publisher' };
const role = ROLES[step] ?? 'agent';
const tag = `[${role} ${unit}]`;

const TOPICS = [
  ['Processes and Signals', 'process', 'signal', 'kill(2)'],
  ['Pipes and Backpressure', 'pipe', 'buffer', 'write(2)'],
  ['Files That Survive Crashes', 'rename', 'fsync', 'rename(2)'],
  ['Watching the Filesystem', 'inotify', 'event', 'inotify_add_watch(2)'],
  ['Timeouts and Liveness', 'watchdog', 'deadline', 'setTimeout'],
  ['Retries Without Regret', 'backoff', 'jitter', 'retry'],
  ['Circuit Breakers', 'breaker', 'threshold', 'half-open'],
  ['Idempotent Side Effects', 'fingerprint', 'dedupe', 'hash'],
  ['Checkpoints and Recovery', 'checkpoint', 'marker', 'scan'],
  ['Terminal Interfaces', 'terminal', 'escape', 'ioctl(2)'],
  ['Bounded Memory', 'ring buffer', 'window', 'slice'],
  ['Operating at Scale', 'queue', 'concurrency', 'semaphore'],
];
const num = Number(unit.replace(/\D/g, '')) || 1;
const [title, noun, noun2, api] = TOPICS[(num - 1) % TOPICS.length];

// Deterministic pseudo-randomness: the same unit/step/attempt behaves the same every run.
let seed = [...`${unit}/${step}/${attempt}`].reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, 7);
const rand = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
const pause = () => new Promise((r) => setTimeout(r, Math.round((100 + rand() * 200) / speed)));
const say = (line) => process.stdout.write(`${tag} ${line}\n`);

const lookupFault = () => {
  const path = args.faults ? resolve(args.faults) : join(here, 'faults.json');
  if (!existsSync(path)) return 'ok';
  let table;
  try {
    table = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    process.stderr.write(`warning: cannot read faults ${path}: ${err.message}\n`);
    return 'ok';
  }
  return table[`${unit}/${step}`] ?? table[`${unit}/*`] ?? table[`*/${step}`] ?? table['*/*'] ?? 'ok';
};

const SENTENCES = [
  (i) => `The ${noun} is easiest to reason about when its lifetime is explicit; part ${i} follows one from creation to teardown.`,
  () => `The ${noun2} is where things go quietly wrong: the gap between the last write and its acknowledgement.`,
  () => `${api} looks simple, but its error path is the part production code actually exercises.`,
  () => `When two components disagree about who owns the ${noun}, the one that crashed last usually wins.`,
  () => `Measure before tuning: the ${noun2} setting that is never exceeded is configuration, not protection.`,
];
const paragraph = (i) => [0, 1, 2].map((k) => SENTENCES[(i + k * 2) % SENTENCES.length](i)).join(' ');

const code = (i) => ['```js', `// ${title}: example ${i}`, `const ${noun2.replace(/\W/g, '')}${i} = await open${i}('${unit}');`, `console.log('${api}', ${noun2.replace(/\W/g, '')}${i});`, '```'];

// Each content builder returns sections: arrays of lines written a few at a time.
const CONTENT = {
  research: () => [
    [`# ${unit} research notes: ${title}`, '', `Scope: how ${noun} and ${noun2} interact, and what ${api} guarantees.`, ''],
    ['## Key facts', '', `1. ${api} is the primitive every higher-level ${noun} API is built on.`, `2. A ${noun2} that is not flushed is not durable.`, `3. Tools disagree on defaults; document the one we pick.`, ''],
    ['## Open questions', '', `- Does the ${noun} survive a restart of the supervisor?`, `- Which ${noun2} limits are per process, which per host?`, ''],
    ['## Sources', '', `- [man ${api}](https://man7.org/linux/man-pages/) — the reference semantics`, `- "Designing Data-Intensive Applications", ch. 8 — failure modes`, `- Project issue tracker, search "${noun2}" — real incidents`, ''],
  ],
  draft: () => {
    const n = 5;
    const sections = [[`# ${unit.toUpperCase()}: ${title}`, '', `This chapter explains ${noun} and ${noun2} from first principles.`, '']];
    for (let i = 1; i <= n; i++) sections.push([`## ${i}. ${['Why it matters', 'The mechanism', 'A worked example', 'What goes wrong', 'Checklist'][i - 1]}`, '', paragraph(i), '', ...(i % 2 === 1 ? [...code(i), ''] : [])]);
    return sections;
  },
  review: () => [
    [`# ${unit} ${step === 'review' ? 'merged review' : `${step.toUpperCase()} review`}: ${title}`, '', `Reviewed: drafts/${unit}-draft.md (attempt ${attempt}).`, ''],
    ['## Findings', '', `1. Section 2 names ${api} but never shows its error path. (severity: major)`, `2. The ${noun2} example in section 3 omits cleanup. (severity: minor)`, ''],
    [`3. "${noun}" and "${noun2}" are used interchangeably in section 4; pick one term. (severity: minor)`, `4. The checklist repeats section 1. (severity: nit)`, ''],
    ['## Verdict', '', 'Accept after the major finding is fixed.', ''],
  ],
  panel: () => [
    [`# ${unit} reader panel: ${title}`, '', 'Three simulated readers (novice, practitioner, expert) read the merged draft.', ''],
    ['## Summary', '', `- Novice: the ${noun} analogy helped; lost in the code of section 3.`, `- Practitioner: wants the failure table from section 4 earlier.`, `- Expert: the treatment of ${api} is accurate.`, ''],
    ['## Scores', '', '| reader | clarity | depth |', '|---|---|---|', '| novice | 3/5 | 4/5 |', '| practitioner | 4/5 | 4/5 |', '| expert | 4/5 | 3/5 |', ''],
  ],
  html: () => [
    ['<!doctype html>', '<html lang="en">', `<head><meta charset="utf-8"><title>${unit}: ${title}</title></head>`, '<body>'],
    [`<h1>${title}</h1>`, `<p>${paragraph(1)}</p>`],
    [`<h2>The mechanism</h2>`, `<p>${paragraph(2)}</p>`, '</body>', '</html>'],
  ],
};
CONTENT.final = CONTENT.draft;
for (const s of ['r1', 'r2', 'r3']) CONTENT[s] = CONTENT.review;

const fail = (message, exitCode = 1) => {
  process.stderr.write(`${message}\n`);
  process.exit(exitCode);
};

// Write the step's sections gradually; `upTo` stops early (a hang or a crash mid-file).
const writeSections = async (path, sections, upTo = sections.length) => {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, '');
  for (let i = 0; i < Math.min(upTo, sections.length); i++) {
    await pause();
    say(`writing section ${i + 1}/${sections.length}`);
    appendFileSync(path, `${sections[i].join('\n')}\n`);
  }
};

const memoryUpdate = async () => {
  const path = output ?? join(workspace, 'meta', 'chapter-summaries.md');
  await pause();
  say(`summarising ${unit} for long memory`);
  mkdirSync(dirname(path), { recursive: true });
  const existing = existsSync(path) ? readFileSync(path, 'utf8') : '';
  // A retried memory step must not duplicate the chapter's entry.
  if (new RegExp(`^## ${unit}\\b`, 'm').test(existing)) {
    say('entry already present; nothing to do');
    return;
  }
  const lead = existing === '' || existing.endsWith('\n\n') ? '' : existing.endsWith('\n') ? '\n' : '\n\n';
  appendFileSync(
    path,
    `${lead}## ${unit} — ${title}\n\n` +
      `Introduces ${noun} and ${noun2} and shows how ${api} behaves under failure. ` +
      `The worked example builds a small ${noun} that survives a crash. ` +
      `Readers asked for the failure table earlier; later chapters refer back to it.\n`,
  );
  say('done');
};

const main = async () => {
  const fault = lookupFault();
  say(`starting ${step} (attempt ${attempt}${fault !== 'ok' ? `, fault ${fault}` : ''})`);

  if (fault === 'rate_limit_twice' && attempt <= 2) {
    await pause();
    fail('Error: 429 Too Many Requests — rate limit exceeded, retry after 2s');
  }
  if (fault === 'overloaded' && attempt === 1) {
    await pause();
    fail('529 Overloaded');
  }
  if (fault === 'permission') {
    await pause();
    fail(`Error: EACCES: permission denied, open '${output ?? join(workspace, `${step}/${unit}.md`)}'`);
  }

  if (step === 'memory') return memoryUpdate();
  if (!output) fail('usage: fake-agent.mjs --unit chNN --step STEP --output ABS_PATH --marker MARKER --attempt N', 2);

  const sections = (CONTENT[step] ?? CONTENT.draft)();

  if (fault === 'hang') {
    await writeSections(output, sections, 1);
    say('waiting for the model…');
    // Silent hang: connected, alive, no output, no file growth — only a watchdog notices.
    setInterval(() => {}, 1 << 30);
    return;
  }
  if (fault === 'cut_after_2') {
    // Issue 17 item 3: two sections written, each ending cleanly, then silence; the file looks
    // finished but for its marker, and only the journal knows its writer was cut off.
    await writeSections(output, sections, 2);
    say('waiting for the model…');
    setInterval(() => {}, 1 << 30);
    return;
  }
  if (fault === 'escape') {
    // Issue 16 item 4: a helper that leaves the group and the session (detached = setsid),
    // closes the run's pipes, shrugs off SIGTERM and forks another of itself when it gets
    // one. Only the run token in its environment ties it to the run. Then a silent hang.
    // CHECKROOM_FAKE_NOTES (tests): where the helper notes each fork, so a test sees it happen.
    const helper = `process.on('SIGTERM', () => {
      const c = require('node:child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1 << 30)'], { detached: true, stdio: 'ignore' });
      c.unref();
      if (process.env.CHECKROOM_FAKE_NOTES) require('node:fs').appendFileSync(process.env.CHECKROOM_FAKE_NOTES, 'forked ' + c.pid + '\\n');
    });
    setInterval(() => {}, 1 << 30);`;
    const child = spawn(process.execPath, ['-e', helper], { detached: true, stdio: 'ignore' });
    child.unref();
    await new Promise((r) => child.once('spawn', r));
    say(`helper ${child.pid} left the session`);
    await writeSections(output, sections, 1);
    say('waiting for the model…');
    setInterval(() => {}, 1 << 30);
    return;
  }
  if (fault === 'chatty') {
    // Issue 17 item 6: output for several seconds (CHECKROOM_FAKE_CHATTY_MS, default 6000),
    // a line every 50 ms, then the whole file and its marker. A broken stdout (EPIPE) kills it.
    const until = Date.now() + (Number(process.env.CHECKROOM_FAKE_CHATTY_MS) || 6000);
    let n = 0;
    while (Date.now() < until) {
      say(`thinking ${++n}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  if (fault === 'same_error') {
    await writeSections(output, sections, 1);
    fail("TypeError: Cannot read properties of undefined (reading 'sections') at renderOutline (outline.js:42)");
  }
  if (fault === 'broken_build') {
    await writeSections(output, sections, 1);
    fail("SyntaxError: Unexpected token '}' (outline.js:12:3)");
  }
  if (fault === 'context') {
    await writeSections(output, sections, 2);
    fail('context length exceeded: maximum context length is 200000 tokens');
  }

  await writeSections(output, sections);
  if (fault === 'no_marker') {
    say('finished writing (no marker)');
    return;
  }
  if (marker) {
    // The marker is the proof of completion, so it is the very last thing written.
    appendFileSync(output, `<!-- ${marker} -->\n`);
  }
  say(`done: ${output}`);
};

main().then(
  () => {},
  (err) => fail(`fake-agent crashed: ${err?.stack ?? err}`),
);
