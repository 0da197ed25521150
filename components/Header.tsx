import { Box } from 'ink';
import stringWidth from 'string-width';
import { operatorOf } from '../src/ui/store/operator.js';
import { partialsWords } from '../src/operator/words.js';
import { disagreementShort } from '../src/state/where.js';
import { stopOfState } from '../src/state/where-words.js';
import { bar, drawnLength, fit } from '../src/text/layout.js';
import { presetOf } from '../src/pipeline/presets/index.js';
import { useAppStore } from '../hooks/use-app-store.js';
import { Line, T } from './Styled.js';
import { pastWords } from '../src/ui/history/time-travel.js';
import { AutopilotBadge, QuotaBadge, SpendBadge, useDriverNote } from './AgentsBadge.js';
import { NeedsYouBadge } from './NeedsYou.js';

// Always visible: where the pipeline stands, how much is done, what needs attention, and
// how fresh the picture is (live mode, checkpoint time, last scan).

const time = (ms: number): string => new Date(ms).toTimeString().slice(0, 8);

/**
 * The pause's and the queues' segments in the `rest` of the line: a long PAUSED list is cut
 * (its state never), and the queues' names give way to their counts before the counts are cut.
 */
function heldSegments(rest: number, hold: string, queue: { long: string; short: string }): { holdShown: string; queueShown: string } {
  const holdShown = hold ? fit(hold, Math.max(14, rest)) : '';
  const left = rest - drawnLength(holdShown);
  if (!queue.short) return { holdShown, queueShown: '' };
  const queueShown = drawnLength(queue.long) <= left ? queue.long : drawnLength(queue.short) <= left ? queue.short : fit(queue.short, Math.max(12, left));
  return { holdShown, queueShown };
}

export function Header({ width }: { width: number }) {
  const ws = useAppStore((s) => s.ws);
  const watching = useAppStore((s) => s.watching);
  const readonly = useAppStore((s) => s.readonly);
  const ascii = useAppStore((s) => s.ascii);
  const past = useAppStore((s) => s.past);
  // The operator model's counts: the same numbers as `status`, the socket and the tabs.
  const c = useAppStore((s) => operatorOf(s).counts);
  // Where the work stopped, not the first batch not done: an operator back
  // after an interruption asks where the agents were; a Batch 1 with lost markers is a
  // regression the recover report and `status` list, not the place to resume from.
  const stop = stopOfState(ws);
  const batch = stop.batch !== null ? ` · Batch ${stop.batch}` : '';
  const differs = disagreementShort(ws.stoppedAt);
  const says = differs ? ` · ${differs}` : '';
  const ro = readonly ? ' · READ-ONLY' : '';
  // Drain and pause (docs/drain.md): the operator model's words, an observer's too.
  const held = useAppStore((s) => operatorOf(s).pause.words);
  const hold = held ? ` · ${held}` : '';
  // What waits on named actions and redo (docs/redrive.md): the operator model's words, the names first to go.
  const queues = useAppStore((s) => operatorOf(s).queues);
  const queue = { long: queues.words ? ` · ${queues.words}` : '', short: queues.short ? ` · ${queues.short}` : '' };
  // Room kept for both: a PAUSED list may be cut, the queues' counts (a few words at most) not.
  const kept = Math.min(hold.length, 30) + queue.short.length;
  // In a narrow terminal the phase's name gives way before the checkpoint's word is cut (60×20).
  const named = stop.phase ? `Phase ${stop.phase.id} ${stop.phase.name}` : 'all phases done';
  const room = width - batch.length - says.length - ro.length - kept - 4 - 'checkroom · x'.length;
  const where = stop.phase && drawnLength(named) > room ? `Phase ${stop.phase.id}` : named;
  const driver = useDriverNote();
  const title = fit(`checkroom · ${ws.name}`, Math.max(10, width - drawnLength(where) - batch.length - says.length - ro.length - kept - 4));
  const { holdShown, queueShown } = heldSegments(width - drawnLength(title) - 3 - drawnLength(where) - batch.length - says.length - ro.length, hold, queue);
  const live =
    watching.mode === 'watch'
      ? `live: watch (${watching.watches} dirs)`
      : watching.mode === 'poll'
        ? `live: poll${watching.notice ? ` — ${watching.notice}` : ''}`
        : `live: off${watching.notice ? ` — ${watching.notice}` : ''} (r rescans)`;
  const half = partialsWords(c);
  const tally = `${c.done}/${c.total} done · ${half} · ${c.failed} failed · ${c.needsHuman} needs human · ${c.running} running${c.pending ? ` · ${c.pending} pending` : ''}`;
  // A preset without checkpoint.md names its own record (gates: the plan).
  const preset = presetOf(ws.preset);
  const cp = !preset.has.checkpoint ? (ws.checkpoint.exists ? (ws.checkpoint.lastUpdate ?? preset.words.record) : `no ${preset.words.record}`) : ws.checkpoint.exists ? `checkpoint ${ws.checkpoint.lastUpdate ?? 'no date'}` : 'no checkpoint.md';
  return (
    <Box flexDirection="column">
      <Line>
        <T tok="title">{title}</T> · {where}
        {batch}
        {says ? <T tok="warn">{says}</T> : null}
        {readonly ? <T tok="warn"> · READ-ONLY</T> : null}
        {holdShown ? <T tok="warn">{holdShown}</T> : null}
        {queueShown ? <T tok="accent">{queueShown}</T> : null}
      </Line>
      <Line>
        <T tok="ok">{bar(c.done, c.total, Math.min(24, Math.max(8, width - stringWidth(tally) - 1)) - (ascii ? 2 : 0), ascii)}</T> {c.done}/{c.total} done ·{' '}
        <T tok={c.halfProducts + c.suspects ? 'warn' : 'muted'}>{half}</T> · <T tok={c.failed ? 'fail' : 'muted'}>{c.failed} failed</T> ·{' '}
        <T tok={c.needsHuman ? 'fail' : 'muted'}>{c.needsHuman} needs human</T> · <T tok={c.running ? 'accent' : 'muted'}>{c.running} running</T>
        {c.pending ? <T tok="muted"> · {c.pending} pending</T> : null}
      </Line>
      {/* Time travel (docs/history.md): the freshness line says which moment is drawn instead. */}
      {past ? <Line tok="warn">{fit(`${pastWords(past)} · esc: now`, width)}</Line> : <Line tok="muted">
        <NeedsYouBadge />
        {driver ? <T tok="warn">{driver}</T> : null}
        <AutopilotBadge />
        <QuotaBadge />
        <SpendBadge />
        {live} · {cp} · scanned {time(ws.scannedAt)}
      </Line>}
    </Box>
  );
}
