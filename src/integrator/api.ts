import { randomUUID } from 'node:crypto';

/** Where and as whom the integrator CLI calls the API: an API key only (`GATEHOUSE_API_KEY` or `--api-key`). */
export interface ApiTarget {
  baseUrl: string;
  apiKey: string;
}

/** An API answer other than 2xx: the problem's `code` and `detail` when it sent one. */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    detail: string,
  ) {
    super(`${status} ${code}: ${detail}`);
  }
}

export type Method = 'GET' | 'POST' | 'PATCH';

const USER_AGENT = 'gatehouse-dev/1';

function headersFor(target: ApiTarget, extra: Record<string, string> = {}): Record<string, string> {
  return { authorization: `Bearer ${target.apiKey}`, 'user-agent': USER_AGENT, ...extra };
}

async function failure(res: Response): Promise<ApiFailure> {
  const text = await res.text();
  try {
    const p = JSON.parse(text) as { code?: string; detail?: string; title?: string };
    return new ApiFailure(res.status, p.code ?? 'error', p.detail ?? p.title ?? text);
  } catch {
    return new ApiFailure(res.status, 'error', text.slice(0, 200));
  }
}

/** One /v1 call; a POST carries a new `Idempotency-Key`. Returns the JSON answer or throws ApiFailure. */
export async function api<T>(target: ApiTarget, method: Method, path: string, body?: unknown): Promise<T> {
  const extra: Record<string, string> = method === 'GET' ? {} : { 'content-type': 'application/json' };
  if (method === 'POST') extra['idempotency-key'] = randomUUID();
  const res = await fetch(new URL(path, target.baseUrl), {
    method,
    headers: headersFor(target, extra),
    body: method === 'GET' ? undefined : JSON.stringify(body ?? {}),
  });
  if (!res.ok) throw await failure(res);
  return (await res.json()) as T;
}

/** One SSE message. */
export interface SseMessage {
  id: string;
  event: string;
  data: string;
}

/**
 * Opens a /v1 stream and calls `onOpen` once it is open, then `onMessage` for each message, until `signal` aborts
 * or the server ends it (resolves). A refused stream throws ApiFailure.
 */
export async function stream(
  target: ApiTarget,
  path: string,
  opts: {
    lastEventId?: string;
    signal: AbortSignal;
    onOpen: () => void;
    onMessage: (m: SseMessage) => Promise<void> | void;
  },
): Promise<void> {
  const res = await fetch(new URL(path, target.baseUrl), {
    headers: headersFor(target, {
      accept: 'text/event-stream',
      ...(opts.lastEventId ? { 'last-event-id': opts.lastEventId } : {}),
    }),
    signal: opts.signal,
  });
  if (!res.ok || !res.body) throw await failure(res);
  opts.onOpen();
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) !== -1) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const m: SseMessage = { id: '', event: 'message', data: '' };
        const data: string[] = [];
        for (const line of block.split('\n')) {
          if (line.startsWith(':')) continue;
          const colon = line.indexOf(':');
          const field = colon === -1 ? line : line.slice(0, colon);
          const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
          if (field === 'id') m.id = value;
          else if (field === 'event') m.event = value;
          else if (field === 'data') data.push(value);
        }
        if (data.length === 0) continue;
        m.data = data.join('\n');
        await opts.onMessage(m);
      }
    }
  } catch (e) {
    if (!opts.signal.aborted) throw e;
  }
}

/**
 * Keeps a stream open until `signal` aborts: a stream the server ended (shutdown) or lost is reopened after a
 * second with the last message's id as `Last-Event-ID`. `onReady` runs when it first opens; a refusal (4xx) or a
 * failure before it ever opened throws.
 */
export async function follow(
  target: ApiTarget,
  path: string,
  opts: {
    signal: AbortSignal;
    onReady: () => void;
    onReopen: (why: string) => void;
    onMessage: (m: SseMessage) => Promise<void> | void;
  },
): Promise<void> {
  let lastEventId: string | undefined;
  let opened = false;
  while (!opts.signal.aborted) {
    try {
      await stream(target, path, {
        lastEventId,
        signal: opts.signal,
        onOpen: () => {
          if (!opened) opts.onReady();
          opened = true;
        },
        onMessage: (m) => {
          lastEventId = m.id || lastEventId;
          return opts.onMessage(m);
        },
      });
      if (!opts.signal.aborted) opts.onReopen('the server ended the stream');
    } catch (e) {
      if (e instanceof ApiFailure && e.status < 500 && e.status !== 429) throw e;
      if (!opened && !(e instanceof ApiFailure)) throw e;
      opts.onReopen((e as Error).message);
    }
    if (opts.signal.aborted) break;
    await new Promise((r) => setTimeout(r, 1000));
  }
}
