import type { Catalog } from './say.js';

// 日本語：checkpoint.md・RESUME.md と同じ言語で理由を述べる。

const sign: Catalog['sign'] = {
  fence: () => 'コードブロックが開いたまま閉じられていない',
  heading: (x) => `中身のない見出しで終わっている（「${x.line}」）`,
  empty_item: (x) => `空のリスト項目で終わっている（「${x.line}」）`,
  comment: (x) => `HTML コメントの途中で終わっている（「${x.line}」）`,
  dangling: (x) => `文が機能語で途切れている（「${x.line}」）`,
  connector: (x) => `文が「${x.char}」で途切れている（「${x.line}」）`,
  no_punct: (x) => `文が句点なしで途切れている（「${x.line}」）`,
  item_dangling: (x) => `最後の項目が機能語で途切れている（「${x.line}」）`,
  item_connector: (x) => `最後の項目が「${x.char}」で途切れている（「${x.line}」）`,
  item_unclosed: (x) =>
    `他の ${x.of} 項目のうち ${x.closed} 項目には句点があるのに、最後の項目にはない${x.noEol ? '。ファイル末尾に改行もない' : ''}（「${x.line}」）`,
};

const n = (w: { chars: number; atLeast?: true }): string => (w.atLeast ? `${w.chars} 以上の` : `${w.chars} `);

const SHAPE: Catalog['shape'] = {
  other: (w) => `最後の行は別のマーカー（「${w.line}」）で、このステップの <!-- ${w.expected} --> ではない：agent がファイルかマーカーを取り違えた恐れ`,
  inline: (w) => `マーカーが本文の行末にあり（「${w.line}」）、独立した行になっていないので、完了とは数えない`,
  case: (w) => `最後の行「${w.line}」は大文字・小文字の違うマーカー（正しくは <!-- ${w.expected} -->）なので、完了とは数えない`,
  bare: (w) => `最後の行「${w.line}」はマーカー名だがコメントの括弧がない（正しくは <!-- ${w.expected} -->）ので、完了とは数えない`,
};

const entry: Catalog['entry'] = {
  claimed: () => 'checkpoint.md は完了としているが、エントリがない',
  later_exists: (e) => `${e.path} は存在するが、エントリがない`,
  batch_ran: (e) => `${e.deps.join('、')} は完了し、Batch ${e.batch} の長期記憶の更新は他の章のエントリを書いたが、この章のものは書いていない`,
};

const source: Catalog['source'] = (x) =>
  x.from === 'final' ? `${x.source}（最終稿）` : x.from === 'draft' ? `${x.source}（マーカー付きの草稿）` : '使える元がない：章をやり直す';

const ERRORS: Record<string, string> = {
  'binary content (NUL bytes): not a text artifact': 'バイナリ内容（NUL バイトあり）：テキストの成果物ではない',
  'permission denied: cannot read this file': '権限がない：このファイルを読めない',
  'not a file': 'ファイルではない',
  'not a regular file': '通常のファイルではない',
};
const error = (e: string): string =>
  ERRORS[e] ??
  e
    .replace(/^cannot read it \((.*)\)$/, '読めない（$1）')
    .replace(/^cannot read: /, '読めない：')
    .replace(/^a symlink out of the workspace \(to (.*)\): not read; .*$/, 'ワークスペースの外を指すシンボリックリンク（$1 へ）：読んでいない。許可するには checkroom.yaml の outside_roots にそのルートを書く')
    .replace(/^a symlink loop: .*$/, 'シンボリックリンクのループ：自分自身を指していて読めない');

// ジャーナルが記録した書き手の途切れ方。
const CUT_EVENT: Catalog['cutEvent'] = {
  cancelled: 'キャンセルされた',
  killed: '強制終了された',
  stalled: 'アイドル監視で停止された',
  timed_out: 'タイムアウトで停止された',
  reaped: '再起動時に終了された（reaped）',
  lost: '再起動時に既に消えていた（終了が記録されていない）',
};

const FACTS: Catalog['facts'] = {
  unreadable: (w) => `${error(w.error)}`,
  short: (w) => `${w.chars} 文字しかなく（${w.limit} 未満）マーカーもない：早くに途切れた`,
  cut: (w) => `${n(w)}文字、マーカーなし、末尾が途切れている：${sign[w.sign.k](w.sign as never)}`,
  writer_cut: (w) => `書き手が ${w.time} に${CUT_EVENT[w.event]}ときに途切れた（試行 ${w.attempt}、ジャーナル）：${n(w)}文字、マーカーなし、その後変更なし、末尾の見た目にかかわらず`,
};

export const JA: Catalog = {
  sign,
  shape: SHAPE,
  entry,
  source,
  error,
  cutEvent: CUT_EVENT,
  facts: FACTS,
  why: {
    unreadable: (w) => `${FACTS.unreadable(w)}。バックアップしてやり直す`,
    short: (w) => `${FACTS.short(w)}。バックアップしてやり直す`,
    cut: (w) => `${FACTS.cut(w)}。バックアップしてやり直す`,
    writer_cut: (w) => `${FACTS.writer_cut(w)}。バックアップしてやり直す`,
    clean: (w) => `${n(w)}文字、きれいに終わっていて（「${w.line}」）、マーカーだけがない：保持（マーカーを追記）かやり直し`,
    marker_shaped: (w) => `${n(w)}文字。${SHAPE[w.shape](w)}。末尾を確認し、マーカーを手で直すかやり直す`,
    suspicious: (w) => `マーカーはあるが本文が ${w.body} 文字しかない（少なくとも ${w.min} のはず）：agent が不十分な成果にマーカーを付けた恐れ。確認かやり直し`,
    marker_not_last: (w, say) =>
      w.then.k === 'clean'
        ? `マーカーはあるがその後に内容が続くので、完了とは数えない。${w.then.chars} 文字、きれいに終わっている（「${w.then.line}」）：保持（末尾にマーカーを追記）かやり直し`
        : `マーカーはあるがその後に内容が続くので、完了とは数えない。${say(w.then)}`,
    phase_missing: (w) => `Phase ${w.phase} ${w.name}：${w.missing.join('、')} がない${w.started ? 'のに後続の作業が始まっている。chapters/ かマーカー付きの草稿から再構築する' : ''}`,
    blocked: (w) => {
      const holds = w.held.length ? `${w.unit} の後続 ${w.held.length} ステップを止めている（${w.held.join('、')}）` : '後続を止めていない';
      const what = w.cause ? `読めない（${error(w.cause)}）。直してから再スキャンする` : w.failed ? '失敗した' : '人の判断が必要';
      return `${w.unit} ${w.step} は${what}。${holds}${w.waits.length ? `。先に ${w.waits.join('、')} が必要` : ''}`;
    },
    rebuild_entry: (w) =>
      `${w.src.from === 'redo' ? `${w.unit} をやり直して ${w.file} のエントリを再構築する：${source(w.src)}` : `${source(w.src)}から ${w.unit} の ${w.file} のエントリを再構築する`}。${entry[w.because.k](w.because as never)}`,
    at_path: (w, say) => `${w.path}：${say(w.then)}`,
    waits_first: (w, _say, facts) => `${w.path}：${facts(w.then)}。${w.waits.join('、')} が完了するまでやり直せない：判断する（先にそれを終えるか、ファイルを確認する）`,
    ready: (w) => (w.deps.length ? `着手可能：${w.deps.join('、')} は完了` : '着手可能：依存なし'),
    mem_absent: (w) => `章の作業が始まっているのに ${w.file} がない`,
    mem_unreadable: (w) => `${w.file}：${error(w.error)}`,
    mem_empty: (w) => `${w.file} には${w.titled ? 'タイトル以外の' : ''}内容がない`,
    mem_cut: (w) => `${w.file} が途切れている：${sign[w.sign.k](w.sign as never)}`,
    entry_empty: (w) => `${w.file} の ${w.unit} のエントリは見出しだけで中身がない`,
    entry_cut: (w) => `${w.file} の ${w.unit} のエントリが途切れている：${sign[w.sign.k](w.sign as never)}`,
    no_entry: (w) => `${w.file} に ${w.unit} のエントリがない：${entry[w.because.k](w.because as never)}`,
  },
};
