import { Box } from 'ink';
import { footerHints, type Scope } from '../src/ui/keys/keymap.js';
import { VIEWS } from '../src/ui/views/views.js';
import { notOffered } from '../src/ui/keys/held-keys.js';
import { commandCandidates } from '../src/ui/keys/command-line.js';
import { fit, packHints } from '../src/text/layout.js';
import type { Token } from '../src/text/theme.js';
import { useAppStore } from '../hooks/use-app-store.js';
import { Line, T } from './Styled.js';
import { markedWords } from '../src/ui/marks/marks.js';

// Two rows: the message or prompt line, then key hints generated from the key table for
// what has the keyboard now (dialog, prompt, or the current view).

const TONE: Record<string, Token> = { info: 'muted', ok: 'ok', warn: 'warn', fail: 'fail' };

export function Footer({ width }: { width: number }) {
  const view = useAppStore((s) => s.view);
  const readonly = useAppStore((s) => s.readonly);
  const dialog = useAppStore((s) => s.dialog !== null);
  const prompt = useAppStore((s) => s.prompt);
  const message = useAppStore((s) => s.message);
  const busy = useAppStore((s) => s.busy);
  const hidden = useAppStore(notOffered);
  const pager = useAppStore((s) => s.pager !== null);
  // "N marked" and the keys that act on them, first in the hint row (docs/marks.md).
  const marked = useAppStore((s) => markedWords(s.marks, s.view));
  // What the `:` line could become, as you type: the candidates tab cycles through.
  const cands = prompt?.kind === 'command' && prompt.text.trim() ? commandCandidates(prompt.tab?.stem ?? prompt.text) : [];
  const offer = cands.length > 1 ? `  ${cands.map((n) => `:${n}`).join(' ')}` : '';
  const scope: Scope = dialog ? 'dialog' : prompt ? 'prompt' : pager ? 'pager' : 'main';
  const all = footerHints(scope, view, readonly, hidden).map((h) => `${h.label} ${h.hint}`);
  // `?` and `q` always show; the view's own keys come first and are cut if the row is short.
  const last = all.filter((h) => h.startsWith('? ') || h.startsWith('q '));
  const first = all.filter((h) => !last.includes(h));
  if (scope === 'main') first.unshift(`${VIEWS[0].key}-${VIEWS[VIEWS.length - 1].key}/tab views`);
  if (scope === 'main' && marked) first.unshift(marked);
  const tail = last.join(' · ');
  // Whole hints only: "c conse…" told nothing and hid the keys after it.
  const hints = [packHints(first.filter((h) => scope !== 'main' || !h.startsWith('tab ')), Math.max(10, width - tail.length - 3)), tail].filter(Boolean);
  return (
    <Box flexDirection="column">
      {prompt ? (
        <Line>
          <T tok="accent">{prompt.kind === 'filter' ? '/' : ':'}</T>
          {fit(prompt.text, width - 3)}
          <T tok="selected">_</T>
          <T tok="muted">{fit(offer, Math.max(0, width - 3 - prompt.text.length))}</T>
        </Line>
      ) : busy ? (
        <Line tok="accent">{fit(`… ${busy}`, width)}</Line>
      ) : message ? (
        <Line tok={TONE[message.tone]}>{fit(message.text, width)}</Line>
      ) : (
        <Line tok="muted">{readonly ? 'read-only: nothing in the workspace will be written' : ' '}</Line>
      )}
      <Line tok="muted">{fit(hints.join(' · '), width)}</Line>
    </Box>
  );
}
