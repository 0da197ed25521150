import { describe, expect, it } from 'vitest';
import { parseCli } from '../../src/cli/args.js';
import { resumesPause } from '../../src/cli/commands/pause-command.js';
import { commandPauseRequest } from '../../src/ui/agents/pause.js';

// The words of drain and pause (docs/drain.md) as the command line and the `:` line read them.
// `checkroom resume` was the RESUME.md letter before pauses existed: it stays that, and only
// a scope flag makes it end a pause.

describe('checkroom resume: the letter, or the end of a pause', () => {
  it('plain resume (and --write) is the RESUME.md letter; a scope flag ends a pause', () => {
    expect(resumesPause(parseCli(['resume']))).toBe(false);
    expect(resumesPause(parseCli(['resume', '--write']))).toBe(false);
    expect(resumesPause(parseCli(['resume', '--all']))).toBe(true);
    expect(resumesPause(parseCli(['resume', 'ws', '--agent', 'writer']))).toBe(true);
    expect(resumesPause(parseCli(['resume', '--cell', 'ch03/draft']))).toBe(true);
    expect(resumesPause(parseCli(['resume', '--executor', 'slurm']))).toBe(true);
  });

  it('drain and pause are commands; --off is read', () => {
    expect(parseCli(['drain', 'ws', '--off'])).toMatchObject({ command: 'drain', positionals: ['ws'], off: true });
    expect(parseCli(['pause', '--agent', 'writer'])).toMatchObject({ command: 'pause', agent: 'writer' });
  });
});

describe('the : line: :drain, :undrain, :pause, :resume', () => {
  it('reads a scope, and refuses what names nothing with what to type', () => {
    expect(commandPauseRequest('drain', '')).toMatchObject({ scope: 'drain', target: null, on: true, by: expect.stringMatching(/ via :drain$/) });
    expect(commandPauseRequest('undrain', '')).toMatchObject({ scope: 'drain', on: false });
    expect(commandPauseRequest('drain', 'now')).toBe(':drain takes no argument (got "now")');
    expect(commandPauseRequest('pause', '')).toMatchObject({ scope: 'all', target: null, on: true });
    expect(commandPauseRequest('pause', 'executor=slurm')).toMatchObject({ scope: 'executor', target: 'slurm', on: true });
    expect(commandPauseRequest('resume', 'cell=ch03/draft')).toMatchObject({ scope: 'cell', target: 'ch03/draft', on: false });
    expect(commandPauseRequest('pause', 'writer')).toMatch(/names nothing to pause/);
  });
});
