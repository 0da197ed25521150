import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ACCOUNTING_OFF, parseElapsed, parseRss, parseSacct, parseSlurmTime, sacctArgs, sacctUnfinished } from '../../../../src/run/executors/sacct.js';
import { startedOf } from '../../../../src/run/executors/job-facts.js';

// sacct's --parsable2 output (issue 22 item 2), from fixtures captured on the test cluster of
// test/helpers/slurm-nodes.ts (Slurm 22.05, slurmdbd on MariaDB 10.11).

const fixture = (name: string): string => readFileSync(join(import.meta.dirname, '..', '..', '..', 'fixtures', 'slurm', name), 'utf8');

describe('sacct', () => {
  it('asks with an argument array: parsable2, no header, the nine fields', () => {
    expect(sacctArgs(['12', '13'])).toEqual(['sacct', '--parsable2', '--noheader', '-j', '12,13', '-o', 'JobID,State,Elapsed,MaxRSS,ExitCode,NodeList,Start,End,Submit']);
  });

  it('folds steps into their job: the job line has the state and times, MaxRSS is the largest step figure', () => {
    const jobs = parseSacct(fixture('sacct-22.05.txt'));
    expect([...jobs.keys()]).toEqual(['1', '2', '3', '5']);
    const failed = jobs.get('2')!;
    expect(failed).toEqual({
      jobId: '2',
      state: 'FAILED',
      elapsedMs: 4000,
      maxRssKiB: 66192,
      exitCode: '3:0',
      node: 'n1',
      submitAt: new Date('2026-12-02T07:03:03').getTime(),
      startAt: new Date('2026-12-02T07:03:05').getTime(),
      endAt: new Date('2026-12-02T07:03:09').getTime(),
    });
    expect(jobs.get('1')).toMatchObject({ state: 'NODE_FAIL', elapsedMs: 27_000, maxRssKiB: null, node: 'n1' });
    // "CANCELLED by 0" is CANCELLED; a job cancelled while pending never had a node.
    expect(jobs.get('3')).toMatchObject({ state: 'CANCELLED', maxRssKiB: 3168 });
    expect(jobs.get('5')).toMatchObject({ state: 'CANCELLED', node: null });
  });

  it('a job the database has not seen end yet is unfinished: asked again', () => {
    const j = parseSacct(fixture('sacct-running-22.05.txt')).get('3')!;
    expect(j.endAt).toBeNull();
    expect(sacctUnfinished(j.state)).toBe(true);
    expect(sacctUnfinished('COMPLETED')).toBe(false);
    expect(sacctUnfinished('NODE_FAIL')).toBe(false);
  });

  it('reads the elapsed, RSS and time formats of the man page, and refuses the rest', () => {
    expect(parseElapsed('00:00:27')).toBe(27_000);
    expect(parseElapsed('1-02:03:04')).toBe(((24 + 2) * 3600 + 3 * 60 + 4) * 1000);
    expect(parseElapsed('03:04.500')).toBe(184_500);
    expect(parseElapsed('INVALID')).toBeNull();
    expect(parseRss('66192K')).toBe(66192);
    expect(parseRss('1.50M')).toBe(1536);
    expect(parseRss('2G')).toBe(2 * 1024 * 1024);
    expect(parseRss('0')).toBe(0);
    expect(parseRss('')).toBeNull();
    expect(parseSlurmTime('Unknown')).toBeNull();
    expect(parseSlurmTime('None')).toBeNull();
  });

  it('lines of the wrong shape or hostile text are skipped, never thrown on', () => {
    const jobs = parseSacct('garbage\n12|COMPLETED\n\u001b[31m|x|y|z|a|b|c|d|e\n7|COMPLETED|00:00:01||0:0|n\u001b]0;pwn\u0007|Unknown|Unknown|Unknown\n');
    expect([...jobs.keys()]).toEqual(['7']);
    // Kept as text: the views sanitize where they draw (test/ui/components/job-detail.test.tsx).
    expect(jobs.get('7')!.node).toContain('n');
  });

  it('knows sacct without slurmdbd: accounting is off', () => {
    expect(ACCOUNTING_OFF.test('sacct: error: Slurm accounting storage is disabled')).toBe(true);
  });

  it('scontrol show job gives the submit and start times, so the queue wait, and the node', () => {
    const shown = 'JobId=2 JobName=wrap JobState=RUNNING SubmitTime=2026-12-02T07:03:03 StartTime=2026-12-02T07:03:05 EndTime=Unknown NodeList=n1 BatchHost=n1';
    expect(startedOf(shown, parseSlurmTime)).toEqual({ node: 'n1', submitAt: new Date('2026-12-02T07:03:03').getTime(), startAt: new Date('2026-12-02T07:03:05').getTime(), queueWaitMs: 2000 });
    expect(startedOf('JobId=3 JobState=PENDING SubmitTime=2026-12-02T07:03:03 StartTime=Unknown NodeList=(null)', parseSlurmTime)).toEqual({ node: null, submitAt: new Date('2026-12-02T07:03:03').getTime(), startAt: null, queueWaitMs: null });
  });
});
