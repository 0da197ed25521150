import type { Catalog } from './say.js';

// 简体中文：与 checkpoint.md、RESUME.md 模板同一语言。

const sign: Catalog['sign'] = {
  fence: () => '代码块开了头却没有闭合',
  heading: (x) => `结尾是一个下面没有内容的标题（“${x.line}”）`,
  empty_item: (x) => `结尾是一个空的列表项（“${x.line}”）`,
  comment: (x) => `结尾停在 HTML 注释里面（“${x.line}”）`,
  dangling: (x) => `句子停在一个虚词上，没有写完（“${x.line}”）`,
  connector: (x) => `句子停在“${x.char}”上，没有写完（“${x.line}”）`,
  no_punct: (x) => `句子没有结束标点，没有写完（“${x.line}”）`,
  item_dangling: (x) => `最后一项停在一个虚词上（“${x.line}”）`,
  item_connector: (x) => `最后一项停在“${x.char}”上（“${x.line}”）`,
  item_unclosed: (x) =>
    `最后一项没有结束标点，而其他 ${x.of} 项中有 ${x.closed} 项有${x.noEol ? '，并且文件末尾没有换行' : ''}（“${x.line}”）`,
};

const n = (w: { chars: number; atLeast?: true }): string => (w.atLeast ? `至少 ${w.chars}` : String(w.chars));

const SHAPE: Catalog['shape'] = {
  other: (w) => `最后一行是另一个标记（“${w.line}”），不是本步骤的 <!-- ${w.expected} -->：agent 可能写错了文件或标记`,
  inline: (w) => `标记写在一行正文的末尾（“${w.line}”），没有单独成行，所以不算数`,
  case: (w) => `最后一行“${w.line}”是大小写不对的标记（应为 <!-- ${w.expected} -->），所以不算数`,
  bare: (w) => `最后一行“${w.line}”写了标记名，却缺少注释括号（应为 <!-- ${w.expected} -->），所以不算数`,
};

const entry: Catalog['entry'] = {
  claimed: () => 'checkpoint.md 标为已完成，但条目不存在',
  later_exists: (e) => `${e.path} 已存在，但条目不存在`,
  batch_ran: (e) => `${e.deps.join('、')} 已完成，Batch ${e.batch} 的长记忆更新写了其他章节的条目，却没有写这一章`,
};

const source: Catalog['source'] = (x) =>
  x.from === 'final' ? `${x.source}（定稿）` : x.from === 'draft' ? `${x.source}（已标记的草稿）` : '没有可用的来源：重做这一章';

const ERRORS: Record<string, string> = {
  'binary content (NUL bytes): not a text artifact': '二进制内容（含 NUL 字节）：不是文本产物',
  'permission denied: cannot read this file': '权限不足：无法读取此文件',
  'not a file': '不是文件',
  'not a regular file': '不是普通文件',
};
const error = (e: string): string =>
  ERRORS[e] ??
  e
    .replace(/^cannot read it \((.*)\)$/, '无法读取（$1）')
    .replace(/^cannot read: /, '无法读取：')
    .replace(/^a symlink out of the workspace \(to (.*)\): not read; .*$/, '指向工作区之外的符号链接（指向 $1）：未读取；如需允许，请在 checkroom.yaml 的 outside_roots 中列出其根目录')
    .replace(/^a symlink loop: .*$/, '符号链接循环：它指回自身，无法读取');

// 日志所记的写入者被截断的方式。
const CUT_EVENT: Catalog['cutEvent'] = {
  cancelled: '被取消',
  killed: '被强制结束',
  stalled: '被空闲看门狗停止',
  timed_out: '超时被停止',
  reaped: '在重启时被结束（reaped）',
  lost: '丢失（重启时已不在，结束未被记录）',
};

const FACTS: Catalog['facts'] = {
  unreadable: (w) => `${error(w.error)}`,
  short: (w) => `只有 ${w.chars} 个字符（不足 ${w.limit}）且没有标记：过早中断`,
  cut: (w) => `${n(w)} 个字符，没有标记，结尾被截断：${sign[w.sign.k](w.sign as never)}`,
  writer_cut: (w) => `写入它的 agent 于 ${w.time} ${CUT_EVENT[w.event]}时被截断（第 ${w.attempt} 次尝试，见日志）：${n(w)} 个字符，没有标记，此后未再改动，无论结尾看起来如何`,
};

export const ZH: Catalog = {
  sign,
  shape: SHAPE,
  entry,
  source,
  error,
  cutEvent: CUT_EVENT,
  facts: FACTS,
  why: {
    unreadable: (w) => `${FACTS.unreadable(w)}；备份后重做`,
    short: (w) => `${FACTS.short(w)}；备份后重做`,
    cut: (w) => `${FACTS.cut(w)}；备份后重做`,
    writer_cut: (w) => `${FACTS.writer_cut(w)}；备份后重做`,
    clean: (w) => `${n(w)} 个字符，结尾完整（“${w.line}”），只缺标记：保留（补上标记）或重做`,
    marker_shaped: (w) => `${n(w)} 个字符；${SHAPE[w.shape](w)}：先看结尾，再手工改正标记或重做`,
    suspicious: (w) => `有标记，但正文只有 ${w.body} 个字符（至少应有 ${w.min}）：agent 可能给不合格的产出打了标记；复核或重做`,
    marker_not_last: (w, say) =>
      w.then.k === 'clean'
        ? `有标记，但标记之后还有内容，所以不算完成；${w.then.chars} 个字符，结尾完整（“${w.then.line}”）：保留（在末尾补上标记）或重做`
        : `有标记，但标记之后还有内容，所以不算完成；${say(w.then)}`,
    phase_missing: (w) => `Phase ${w.phase} ${w.name}：缺少 ${w.missing.join('、')}${w.started ? '，而后续工作已经开始；根据 chapters/ 或已标记的草稿重建' : ''}`,
    blocked: (w) => {
      const holds = w.held.length ? `阻塞 ${w.unit} 的 ${w.held.length} 个后续步骤（${w.held.join('、')}）` : '不阻塞后续步骤';
      const what = w.cause ? `无法读取（${error(w.cause)}）：处理后重新扫描` : w.failed ? '失败' : '需要人工处理';
      return `${w.unit} ${w.step} ${what}；${holds}${w.waits.length ? `；需先完成 ${w.waits.join('、')}` : ''}`;
    },
    rebuild_entry: (w) =>
      `${w.src.from === 'redo' ? `重做 ${w.unit} 以重建它在 ${w.file} 中的条目：${source(w.src)}` : `根据 ${source(w.src)}重建 ${w.unit} 在 ${w.file} 中的条目`}；${entry[w.because.k](w.because as never)}`,
    at_path: (w, say) => `${w.path}：${say(w.then)}`,
    waits_first: (w, _say, facts) => `${w.path}：${facts(w.then)}；在 ${w.waits.join('、')} 完成之前无法重做：由人决定（先完成依赖，或查看文件）`,
    ready: (w) => (w.deps.length ? `可以开始：${w.deps.join('、')} 已完成` : '可以开始：没有依赖'),
    mem_absent: (w) => `${w.file} 不存在，而章节工作已经开始`,
    mem_unreadable: (w) => `${w.file}：${error(w.error)}`,
    mem_empty: (w) => `${w.file} ${w.titled ? '除标题外' : ''}没有内容`,
    mem_cut: (w) => `${w.file} 被截断：${sign[w.sign.k](w.sign as never)}`,
    entry_empty: (w) => `${w.unit} 在 ${w.file} 中的条目只有标题，下面没有内容`,
    entry_cut: (w) => `${w.unit} 在 ${w.file} 中的条目被截断：${sign[w.sign.k](w.sign as never)}`,
    no_entry: (w) => `${w.unit} 在 ${w.file} 中没有条目：${entry[w.because.k](w.because as never)}`,
  },
};
