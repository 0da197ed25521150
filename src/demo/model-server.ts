import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { geminiReply, geminiSide, isGeminiPath, isGeminiSide } from './gemini-wire.js';

// A scripted stand-in for the Messages API, so the real Claude Code CLI can be
// driven offline: for tests, and for `npm start -- --claude`. Loopback only, bounded (body
// size, request count, lifetime), and it closes itself. Each POST /v1/messages takes the
// next reply of the script; a reply may depend on the request (the demo reads the prompt).
// The SSE framing follows the Messages API streaming format: message_start,
// content_block_start/delta/stop (text_delta, input_json_delta), message_delta, message_stop.

export type ModelReply =
  | { kind: 'text'; text: string; inputTokens?: number; outputTokens?: number }
  /** A tool call whose arguments stream as input_json_delta pieces. */
  | { kind: 'tool'; name: string; input: Record<string, unknown>; text?: string; inputTokens?: number; outputTokens?: number }
  /** An HTTP error answer with the API's error body; retry-after in seconds when given. */
  | { kind: 'error'; status: number; type: string; message: string; retryAfterS?: number }
  /** The stream starts, sends part of a text or of a tool call's arguments, then stays silent. */
  | { kind: 'stall'; during: 'text' | 'tool_args'; text?: string; name?: string; input?: Record<string, unknown> };

export interface SeenRequest {
  /** 1-based among the /v1/messages requests. */
  n: number;
  path: string;
  model: string;
  stream: boolean;
  /** The last user turn's text (tool results included), for scripts that answer a prompt. */
  lastUserText: string;
  /** Every text of the conversation, joined. */
  allText: string;
  /** tool_use ids answered by tool_result blocks in this request. */
  toolResults: string[];
}

export type ScriptStep = ModelReply | ((req: SeenRequest) => ModelReply);

export interface ModelServerOptions {
  script: ScriptStep[];
  /** Reply once the script is used up (default: a short end_turn text). */
  fallback?: ScriptStep;
  /** The server closes itself after this long (default 10 min). */
  lifetimeMs?: number;
  maxRequests?: number;
  model?: string;
}

export interface ModelServer {
  url: string;
  port: number;
  requests: SeenRequest[];
  close(): Promise<void>;
}

const MAX_BODY = 8 * 1024 * 1024;
const CHUNK = 24;

const textOf = (content: unknown): string => {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((b: { type?: string; text?: string; content?: unknown }) => (b?.type === 'text' ? (b.text ?? '') : b?.type === 'tool_result' ? textOf(b.content) : ''))
    .join('\n');
};

type GeminiPart = { text?: string; functionResponse?: { id?: string; name?: string } };

/** Gemini's `contents` as Messages-API turns, so one script serves both wires. */
const fromGemini = (contents: { role?: string; parts?: GeminiPart[] }[]): { role?: string; content?: unknown }[] =>
  contents.map((c) => ({
    role: c.role === 'model' ? 'assistant' : 'user',
    content: (c.parts ?? []).map((p) => (p.functionResponse ? { type: 'tool_result', tool_use_id: p.functionResponse.id ?? p.functionResponse.name, content: '' } : { type: 'text', text: p.text ?? '' })),
  }));

export const describeRequest = (n: number, path: string, body: Record<string, unknown>): SeenRequest => {
  const messages = Array.isArray(body.messages)
    ? (body.messages as { role?: string; content?: unknown }[])
    : Array.isArray(body.contents)
      ? fromGemini(body.contents as { role?: string; parts?: GeminiPart[] }[])
      : [];
  const users = messages.filter((m) => m?.role === 'user');
  const last = users[users.length - 1];
  const toolResults = Array.isArray(last?.content) ? (last.content as { type?: string; tool_use_id?: string }[]).filter((b) => b?.type === 'tool_result').map((b) => String(b.tool_use_id)) : [];
  return {
    n,
    path,
    model: String(body.model ?? ''),
    stream: body.stream === true || /:streamGenerateContent$/.test(path),
    lastUserText: textOf(last?.content),
    allText: messages.map((m) => textOf(m?.content)).join('\n'),
    toolResults,
  };
};

const sse = (res: ServerResponse, event: string, data: unknown): void => {
  res.write(`event: ${event}\ndata: ${JSON.stringify({ type: event, ...(data as object) })}\n\n`);
};

const pieces = (s: string): string[] => {
  const out: string[] = [];
  for (let i = 0; i < s.length; i += CHUNK) out.push(s.slice(i, i + CHUNK));
  return out.length > 0 ? out : [''];
};

const usage = (r: { inputTokens?: number }) => ({ input_tokens: r.inputTokens ?? 1200, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 });

/** Stream one reply; resolves false when the stream is left hanging (a stall). */
const streamReply = (res: ServerResponse, reply: Exclude<ModelReply, { kind: 'error' }>, model: string): boolean => {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'request-id': `req_${randomBytes(6).toString('hex')}` });
  const id = `msg_${randomBytes(8).toString('hex')}`;
  sse(res, 'message_start', { message: { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: usage(reply as { inputTokens?: number }) } });
  let index = 0;
  const text = reply.kind === 'text' ? reply.text : reply.text;
  if (text !== undefined && text !== '') {
    sse(res, 'content_block_start', { index, content_block: { type: 'text', text: '' } });
    const parts = pieces(text);
    const keep = reply.kind === 'stall' && reply.during === 'text' ? Math.max(1, Math.floor(parts.length / 2)) : parts.length;
    for (const p of parts.slice(0, keep)) sse(res, 'content_block_delta', { index, delta: { type: 'text_delta', text: p } });
    if (reply.kind === 'stall' && reply.during === 'text') return false;
    sse(res, 'content_block_stop', { index });
    index++;
  }
  if (reply.kind === 'tool' || (reply.kind === 'stall' && reply.during === 'tool_args')) {
    const name = reply.kind === 'tool' ? reply.name : (reply.name ?? 'Write');
    const args = JSON.stringify((reply.kind === 'tool' ? reply.input : reply.input) ?? {});
    sse(res, 'content_block_start', { index, content_block: { type: 'tool_use', id: `toolu_${randomBytes(8).toString('hex')}`, name, input: {} } });
    const parts = pieces(args);
    const keep = reply.kind === 'stall' ? Math.max(1, Math.floor(parts.length / 2)) : parts.length;
    for (const p of parts.slice(0, keep)) sse(res, 'content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: p } });
    if (reply.kind === 'stall') return false;
    sse(res, 'content_block_stop', { index });
  }
  const out = (reply as { outputTokens?: number }).outputTokens ?? 300;
  sse(res, 'message_delta', { delta: { stop_reason: reply.kind === 'tool' ? 'tool_use' : 'end_turn', stop_sequence: null }, usage: { output_tokens: out } });
  sse(res, 'message_stop', {});
  res.end();
  return true;
};

/** The same reply as one JSON message, for a caller that did not ask for a stream. */
const jsonReply = (res: ServerResponse, reply: Exclude<ModelReply, { kind: 'error' }>, model: string): void => {
  const content: unknown[] = [];
  if (reply.text) content.push({ type: 'text', text: reply.text });
  if (reply.kind === 'tool') content.push({ type: 'tool_use', id: `toolu_${randomBytes(8).toString('hex')}`, name: reply.name, input: reply.input });
  const body = { id: `msg_${randomBytes(8).toString('hex')}`, type: 'message', role: 'assistant', model, content, stop_reason: reply.kind === 'tool' ? 'tool_use' : 'end_turn', stop_sequence: null, usage: { ...usage(reply as { inputTokens?: number }), output_tokens: 300 } };
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

const readBody = (req: IncomingMessage): Promise<string | null> =>
  new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        resolve(null);
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', () => resolve(null));
  });

/** Start the server on 127.0.0.1 (an ephemeral port). */
export async function startModelServer(opts: ModelServerOptions): Promise<ModelServer> {
  const script = [...opts.script];
  const fallback: ScriptStep = opts.fallback ?? { kind: 'text', text: 'Done.' };
  const model = opts.model ?? 'claude-sonnet-4-5';
  const maxRequests = opts.maxRequests ?? 500;
  const requests: SeenRequest[] = [];
  const sockets = new Set<Socket>();

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = (req.url ?? '/').split('?')[0]!;
    const raw = req.method === 'POST' ? await readBody(req) : '';
    if (raw === null) return void res.writeHead(413).end();
    if (req.method === 'POST' && isGeminiPath(path) && isGeminiSide(path)) return geminiSide(res, path);
    const gemini = req.method === 'POST' && isGeminiPath(path);
    if (!gemini && (req.method !== 'POST' || !path.endsWith('/v1/messages'))) {
      // count_tokens and anything else the CLI may probe: a harmless answer, not a reply.
      res.writeHead(path.endsWith('/count_tokens') ? 200 : 404, { 'content-type': 'application/json' });
      return void res.end(path.endsWith('/count_tokens') ? '{"input_tokens":1200}' : '{"type":"error","error":{"type":"not_found_error","message":"not here"}}');
    }
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      return void res.writeHead(400).end();
    }
    const seen = describeRequest(requests.length + 1, path, body);
    requests.push(seen);
    if (requests.length > maxRequests) {
      res.writeHead(529, { 'content-type': 'application/json' });
      return void res.end('{"type":"error","error":{"type":"overloaded_error","message":"model server request cap reached"}}');
    }
    const next = script.length > 0 ? script.shift()! : fallback;
    const reply = typeof next === 'function' ? next(seen) : next;
    if (gemini) return geminiReply(res, reply);
    if (reply.kind === 'error') {
      // Like the real API: only transient answers invite the client to retry.
      const transient = reply.status === 429 || reply.status >= 500;
      const headers: Record<string, string> = { 'content-type': 'application/json', 'x-should-retry': String(transient) };
      if (reply.retryAfterS !== undefined) headers['retry-after'] = String(reply.retryAfterS);
      res.writeHead(reply.status, headers);
      return void res.end(JSON.stringify({ type: 'error', error: { type: reply.type, message: reply.message } }));
    }
    if (!seen.stream && reply.kind !== 'stall') return jsonReply(res, reply, String(body.model ?? model));
    streamReply(res, reply, String(body.model ?? model));
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as { port: number }).port;
  let closed: Promise<void> | null = null;
  const close = (): Promise<void> => {
    if (closed) return closed;
    clearTimeout(lifetime);
    // Stalled streams hold their sockets open on purpose: end them, or close() never returns.
    for (const s of sockets) s.destroy();
    closed = new Promise((resolve) => server.close(() => resolve()));
    return closed;
  };
  const lifetime = setTimeout(() => void close(), opts.lifetimeMs ?? 600_000);
  lifetime.unref();
  return { url: `http://127.0.0.1:${port}`, port, requests, close };
}

/** The environment that points the Claude Code CLI at `url`, offline. */
export const claudeEnv = (url: string, home: string, maxRetries = 0): Record<string, string> => ({
  ANTHROPIC_BASE_URL: url,
  ANTHROPIC_API_KEY: 'test',
  DISABLE_TELEMETRY: '1',
  DISABLE_ERROR_REPORTING: '1',
  DISABLE_AUTOUPDATER: '1',
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  CLAUDE_CODE_MAX_RETRIES: String(maxRetries),
  HOME: home,
  XDG_CONFIG_HOME: `${home}/.config`,
});

const TARGET = /(?:Write the file|The file) (\/\S+?)(?:[ ,]|\.\s|$)/;
const MARKER = /<!-- ([A-Z][A-Z0-9_]*) -->/;

/**
 * A model for the book demo: asked to write a file with a marker (checkroom's prompt, or
 * its continue prompt), it writes the file with a short body and the marker last; given the
 * tool's result, it says it is done. `body` makes the text of each file.
 */
export const bookResponder =
  (body: (path: string) => string = (p) => `Notes for ${p.split('/').pop()}.\n\nA short, finished section written by the scripted model.`) =>
  (req: SeenRequest): ModelReply => {
    if (req.toolResults.length > 0) return { kind: 'text', text: 'Written, with the marker as its last line.' };
    const target = TARGET.exec(req.lastUserText)?.[1];
    const marker = MARKER.exec(req.lastUserText)?.[1];
    if (!target) return { kind: 'text', text: 'Nothing to write: the prompt names no file.' };
    return { kind: 'tool', name: 'Write', text: `Writing ${target.split('/').slice(-2).join('/')}.`, input: { file_path: target, content: `# ${target.split('/').pop()}\n\n${body(target)}\n${marker ? `\n<!-- ${marker} -->\n` : ''}` } };
  };
