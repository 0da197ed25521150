import { commandById, matchCommand, type CommandId } from '../keys/keymap.js';
import type { KeyToken } from '../keys/keys.js';
import { clampCursors, isNav, navigate } from '../views/nav.js';
import { parseCommandLine } from '../keys/command-line.js';
import { editLine } from '../keys/line-edit.js';
import { completeLine, recallLine, remember } from '../keys/prompt-line.js';
import { handlerOf, type CommandKit } from '../keys/command-handlers.js';
import { said, storeKit, type Decision } from './kit.js';
import type { AppState, Prompt } from './types.js';
import { travelCommand } from '../history/time-travel.js';
import { clockOf } from '../../history/words.js';

// How a key reaches a command: pure routers decide — the read-only and busy
// gates of `run`, the prompt line's editing — and the command's row of COMMAND_HANDLERS
// acts. One keypress is routed by priority: dialog, prompt line, recovery overlay, help
// overlay, then the view.

/** Why `id` does nothing now (read-only, another disk action in flight), `nav` for movement and views, or `table`. */
export function planRun(s: AppState, id: CommandId): Decision | 'nav' | 'table' {
  const c = commandById(id);
  if ((c.dangerous || c.runs) && s.readonly) {
    // Read-only by choice (--readonly) or because another checkroom drives: say which.
    const snap = s.agents.snap;
    const why = snap?.role === 'readonly' && snap.holder ? `pid ${snap.holder.pid}@${snap.holder.host} drives this workspace` : 'started with --readonly';
    return said(`read-only mode: "${c.hint}" is disabled (${why})`, 'warn');
  }
  // The past is for reading: what would act on the workspace or the runs acts on now (docs/history.md).
  if ((c.dangerous || c.runs) && s.past) return said(`"${c.hint}" is off while looking at the past (${clockOf(s.past.at)}); esc returns to now`, 'warn');
  if (c.dangerous && s.busy) return said(`busy: ${s.busy}; try again when it is done`, 'warn');
  return isNav(id) || id.startsWith('view.') ? 'nav' : 'table';
}

/** A key on the prompt line: the state it edits to, or the command a submitted `:` line runs. */
export function promptKey(s: AppState, p: Prompt, t: KeyToken): { change: Partial<AppState> } | { run: CommandId; args: string; change: Partial<AppState> } | null {
  const c = matchCommand(t, 'prompt', s.view);
  if (c?.id === 'prompt.cancel')
    return { change: p.kind === 'filter' ? { prompt: null, filter: '', ...clampCursors({ ...s, filter: '' }, true) } : { prompt: null } };
  if (c?.id === 'prompt.submit') {
    if (p.kind === 'filter') return { change: { prompt: null, message: p.text ? { text: `filter: ${p.text}`, tone: 'info' } : null } };
    const commandHistory = remember(s.commandHistory, p.text);
    const at = travelCommand(s, p.text, Date.now());
    if (at) return { change: { prompt: null, commandHistory, ...at } };
    const r = parseCommandLine(p.text);
    return 'error' in r ? { change: { prompt: null, commandHistory, message: { text: r.error, tone: 'warn' } } } : { run: r.id, args: r.args, change: { commandHistory } };
  }
  if (p.kind === 'command' && (c?.id === 'prompt.complete' || c?.id === 'prompt.older' || c?.id === 'prompt.newer')) {
    const next = c.id === 'prompt.complete' ? completeLine(p, t.shift) : recallLine(p, s.commandHistory, c.id === 'prompt.older');
    return next ? { change: { prompt: next } } : null;
  }
  const text = editLine(p.text, t);
  if (text === null) return null;
  // The filter applies as you type.
  return {
    change: p.kind === 'filter' ? { prompt: { ...p, text }, filter: text, ...clampCursors({ ...s, filter: text }, 'filter') } : { prompt: { ...p, text } },
  };
}

/** The help overlay takes movement (scrolling), esc/? (close) and q; other keys close it first. */
const closesHelp = (id: CommandId): boolean => !isNav(id) && id !== 'back' && id !== 'help' && id !== 'quit';

/** The store's `run` and `feed` over its command kit. */
export function keyRouter(k: CommandKit) {
  const { apply } = storeKit(k);
  const run = (id: CommandId, args = ''): void => {
    const s = k.get();
    if (s.quit) return;
    const plan = planRun(s, id);
    if (plan === 'table') return handlerOf(id)?.(k, s, id, args);
    if (plan !== 'nav') return apply(plan, k.now());
    k.set((st) => navigate({ ...st }, id));
    if (k.get().detail && isNav(id)) k.openDetail();
    if (id.startsWith('view.')) k.set({ detail: null });
  };

  const feedPrompt = (p: Prompt, t: KeyToken): void => {
    const r = promptKey(k.get(), p, t);
    if (!r) return;
    if ('run' in r) {
      k.set({ ...r.change, prompt: null });
      return run(r.run, r.args);
    }
    k.set(r.change);
  };

  const feed = (t: KeyToken): void => {
    const s = k.get();
    if (s.quit) return;
    // ctrl-c always quits, whatever is open: no surprise (k9s issues).
    if (t.ctrl && t.ch === 'c') return k.agents?.requestQuit(true) ? undefined : k.set({ quit: true });
    if (s.dialog) {
      const c = matchCommand(t, 'dialog', s.view);
      return c ? run(c.id) : undefined;
    }
    if (s.prompt) return feedPrompt(s.prompt, t);
    // The log pager owns the keyboard while it is open (its search line first).
    if (s.pager) {
      if (k.pager.typeKey(t)) return;
      const pc = matchCommand(t, 'pager', s.view);
      return pc ? run(pc.id) : undefined;
    }
    if (k.recovery.feed(t)) return;
    const c = matchCommand(t, 'main', s.view);
    if (!c) return;
    if (s.help.open && closesHelp(c.id)) k.set({ help: { open: false, offset: 0 } });
    run(c.id);
  };
  return { run, feed };
}
