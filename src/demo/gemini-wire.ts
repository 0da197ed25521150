import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { ModelReply } from './model-server.js';

// The scripted model in the Gemini API's wire format, so the real Gemini
// CLI can be driven offline through GOOGLE_GEMINI_BASE_URL: POST
// /v1beta/models/<model>:streamGenerateContent?alt=sse answers SSE `data:` chunks of
// GenerateContentResponse (text parts, functionCall parts, usageMetadata); errors are
// {error: {code, message, status}}. Its side requests (the model router's classifier, the
// next-speaker check: non-streamed generateContent) get a fixed answer and do not use a
// reply of the script.

export const isGeminiPath = (path: string): boolean => /\/models\/[^/:]+:(?:stream)?[gG]enerateContent$/.test(path) || /:countTokens$/.test(path);
export const isGeminiSide = (path: string): boolean => !/:streamGenerateContent$/.test(path);

const usage = { promptTokenCount: 1000, candidatesTokenCount: 200, totalTokenCount: 1200 };

const STATUS: Record<number, string> = { 400: 'INVALID_ARGUMENT', 401: 'UNAUTHENTICATED', 403: 'PERMISSION_DENIED', 429: 'RESOURCE_EXHAUSTED', 503: 'UNAVAILABLE' };

/** The router and next-speaker checks: one JSON answer that satisfies both. */
export const geminiSide = (res: ServerResponse, path: string): void => {
  res.writeHead(200, { 'content-type': 'application/json' });
  if (/:countTokens$/.test(path)) return void res.end('{"totalTokens":1000}');
  const text = JSON.stringify({ complexity_reasoning: 'a scripted task', complexity_score: 1, reasoning: 'the model answered', next_speaker: 'user', model_choice: 'flash' });
  res.end(JSON.stringify({ candidates: [{ content: { role: 'model', parts: [{ text }] }, finishReason: 'STOP', index: 0 }], usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 } }));
};

const chunk = (res: ServerResponse, parts: unknown[], finish: boolean): void => {
  res.write(`data: ${JSON.stringify({ candidates: [{ content: { role: 'model', parts }, ...(finish ? { finishReason: 'STOP' } : {}), index: 0 }], ...(finish ? { usageMetadata: usage } : {}), responseId: randomBytes(6).toString('hex') })}\r\n\r\n`);
};

/** Answer one streamGenerateContent request with a reply of the script. */
export const geminiReply = (res: ServerResponse, reply: ModelReply): void => {
  if (reply.kind === 'error') {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (reply.retryAfterS !== undefined) headers['retry-after'] = String(reply.retryAfterS);
    res.writeHead(reply.status, headers);
    return void res.end(JSON.stringify({ error: { code: reply.status, message: reply.message, status: STATUS[reply.status] ?? 'UNKNOWN' } }));
  }
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  if (reply.kind === 'stall') {
    // Half an answer, then silence with the connection open.
    chunk(res, [{ text: (reply.text ?? 'I am starting to').slice(0, 20) }], false);
    return;
  }
  if (reply.kind === 'text') {
    chunk(res, [{ text: reply.text }], true);
    return void res.end();
  }
  // Gemini CLI's file tool is write_file(file_path, content).
  const name = reply.name === 'Write' ? 'write_file' : reply.name;
  chunk(res, [...(reply.text ? [{ text: reply.text }] : []), { functionCall: { name, args: reply.input } }], true);
  res.end();
};
