import type { Catalog } from './say.js';

const s = (n: number): string => (n === 1 ? '' : 's');
/** A count that stopped once the verdict was settled is a lower bound. */
const n = (w: { chars: number; atLeast?: true }): string => (w.atLeast ? `at least ${w.chars}` : String(w.chars));

const SHAPE: Catalog['shape'] = {
  other: (w) => `the last line is another marker ("${w.line}"), not this step's <!-- ${w.expected} -->: the agent may have written the wrong file or the wrong marker`,
  inline: (w) => `the marker stands at the end of a prose line ("${w.line}") instead of on a line of its own, so it does not count`,
  case: (w) => `the last line "${w.line}" is the marker in the wrong case (expected <!-- ${w.expected} -->), so it does not count`,
  bare: (w) => `the last line "${w.line}" names the marker without its comment brackets (expected <!-- ${w.expected} -->), so it does not count`,
};

const sign: Catalog['sign'] = {
  fence: () => 'a code fence is opened and never closed',
  heading: (x) => `ends on a heading with nothing under it ("${x.line}")`,
  empty_item: (x) => `ends on an empty list item ("${x.line}")`,
  comment: (x) => `ends inside an HTML comment ("${x.line}")`,
  dangling: (x) => `ends mid-sentence on a dangling word ("${x.line}")`,
  connector: (x) => `ends mid-sentence on "${x.char}" ("${x.line}")`,
  no_punct: (x) => `ends mid-sentence, without closing punctuation ("${x.line}")`,
  item_dangling: (x) => `the last item stops on a dangling word ("${x.line}")`,
  item_connector: (x) => `the last item stops on "${x.char}" ("${x.line}")`,
  item_unclosed: (x) =>
    `the last item has no closing punctuation while ${x.closed} of ${x.of} other items do${x.noEol ? ', and the file does not end with a newline' : ''} ("${x.line}")`,
};

const entry: Catalog['entry'] = {
  claimed: () => 'checkpoint.md claims it is done but the entry is missing',
  later_exists: (e) => `${e.path} exists but the entry is missing`,
  batch_ran: (e) =>
    `its ${e.deps.join(', ')} ${e.deps.length === 1 ? 'is' : 'are'} done and Batch ${e.batch}'s long-memory update wrote the other chapters' entries but not this one`,
};

const source: Catalog['source'] = (x) =>
  x.from === 'final' ? `${x.source} (final)` : x.from === 'draft' ? `${x.source} (marked)` : 'nothing usable: redo the chapter';

// How the journal says a writer was cut off.
const CUT_EVENT: Catalog['cutEvent'] = {
  cancelled: 'cancelled',
  killed: 'killed',
  stalled: 'stopped by the idle watchdog',
  timed_out: 'stopped at its timeout',
  reaped: 'ended at a restart (reaped)',
  lost: 'lost (gone at a restart, its end never recorded)',
};

const FACTS: Catalog['facts'] = {
  unreadable: (w) => `${w.error}`,
  short: (w) => `only ${w.chars} characters (under ${w.limit}) and no marker: cut off early`,
  cut: (w) => `${n(w)} characters, no marker, and the end is cut: ${sign[w.sign.k](w.sign as never)}`,
  writer_cut: (w) => `cut when its writer was ${CUT_EVENT[w.event]} at ${w.time} (attempt ${w.attempt}, journal): ${n(w)} characters, no marker, unchanged since, however its end reads`,
};

export const EN: Catalog = {
  sign,
  shape: SHAPE,
  entry,
  source,
  error: (e) => e,
  cutEvent: CUT_EVENT,
  facts: FACTS,
  why: {
    unreadable: (w) => `${FACTS.unreadable(w)}; back up and redo`,
    short: (w) => `${FACTS.short(w)}; back up and redo`,
    cut: (w) => `${FACTS.cut(w)}; back up and redo`,
    writer_cut: (w) => `${FACTS.writer_cut(w)}; back up and redo`,
    clean: (w) => `${n(w)} characters, ends cleanly ("${w.line}"), only the marker is missing: keep (append the marker) or redo`,
    marker_shaped: (w) => `${n(w)} characters; ${SHAPE[w.shape](w)}: read the end, then fix the marker by hand or redo`,
    suspicious: (w) => `has its marker but the body is only ${w.body} characters (expected at least ${w.min}): the agent may have marked bad work; review or redo`,
    marker_not_last: (w, say) =>
      w.then.k === 'clean'
        ? `the marker is present but more content follows it, so it does not count; ${w.then.chars} characters, ends cleanly ("${w.then.line}"): keep (append the marker at the end) or redo`
        : `the marker is present but more content follows it, so it does not count; ${say(w.then)}`,
    phase_missing: (w) =>
      `Phase ${w.phase} ${w.name}: ${w.missing.join(', ')} missing${w.started ? ' although later work has started; rebuild from chapters/ or marked drafts' : ''}`,
    blocked: (w) => {
      const holds = w.held.length ? `blocks ${w.held.length} step${s(w.held.length)} of ${w.unit} (${w.held.join(', ')})` : 'blocks nothing downstream';
      const what = w.cause ? `cannot be read (${w.cause}): fix that, then rescan` : w.failed ? 'failed' : 'needs a human';
      return `${w.unit} ${w.step} ${what}; ${holds}${w.waits.length ? `; first needs ${w.waits.join(', ')}` : ''}`;
    },
    rebuild_entry: (w) =>
      `${w.src.from === 'redo' ? `redo ${w.unit} to rebuild its entry in ${w.file}: ${source(w.src)}` : `rebuild ${w.unit}'s entry in ${w.file} from ${source(w.src)}`}; ${entry[w.because.k](w.because as never)}`,
    at_path: (w, say) => `${w.path}: ${say(w.then)}`,
    waits_first: (w, _say, facts) => `${w.path}: ${facts(w.then)}; it cannot be redone before ${w.waits.join(', ')} ${w.waits.length === 1 ? 'is' : 'are'} done: decide (finish ${w.waits.length === 1 ? 'it' : 'them'} first, or look at the file)`,
    ready: (w) => (w.deps.length ? `ready: ${w.deps.join(', ')} done` : 'ready: no dependencies'),
    mem_absent: (w) => `${w.file} does not exist although chapter work has started`,
    mem_unreadable: (w) => `${w.file}: ${w.error}`,
    mem_empty: (w) => `${w.file} has no content${w.titled ? ' beyond its title' : ''}`,
    mem_cut: (w) => `${w.file} is cut off: ${sign[w.sign.k](w.sign as never)}`,
    entry_empty: (w) => `${w.unit}'s entry in ${w.file} has a heading and nothing under it`,
    entry_cut: (w) => `${w.unit}'s entry in ${w.file} is cut off: ${sign[w.sign.k](w.sign as never)}`,
    no_entry: (w) => `${w.unit} has no entry in ${w.file}: ${entry[w.because.k](w.because as never)}`,
  },
};
