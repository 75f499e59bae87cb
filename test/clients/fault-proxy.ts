import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * What the proxy does to the next matching request instead of a plain forward:
 * - `unavailable`: answers 503 (no problem body, as a load balancer would) without forwarding;
 * - `lost-response`: forwards (the server acts on it), then answers 503 instead of the server's response;
 * - `rate-limited`: answers 429 with `Retry-After: <seconds>` without forwarding;
 * - `drop`: closes the connection without an answer (a network error for the client).
 */
export type Fault = 'unavailable' | 'lost-response' | { rateLimitedFor: number } | 'drop';

export interface Seen {
  method: string;
  path: string;
  idempotencyKey: string | null;
  authorization: string | null;
  at: number;
  fault: Fault | null;
  status: number | null;
}

/** A real HTTP proxy on 127.0.0.1 in front of the app, forwarding everything but the faults it is given. */
export class FaultProxy {
  readonly seen: Seen[] = [];
  private faults: { method: string; path: string; fault: Fault }[] = [];
  private server: Server | null = null;
  url = '';

  constructor(private readonly target: string) {}

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  /** The next `method path` request (path without query) gets `fault`, once. */
  failNext(method: string, path: string, fault: Fault): void {
    this.faults.push({ method, path, fault });
  }

  on(method: string, path: string): Seen[] {
    return this.seen.filter((s) => s.method === method && s.path === path);
  }

  private async handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const method = req.method ?? 'GET';
    const path = (req.url ?? '/').split('?')[0];
    const i = this.faults.findIndex((f) => f.method === method && f.path === path);
    const fault = i === -1 ? null : this.faults.splice(i, 1)[0].fault;
    const seen: Seen = {
      method,
      path,
      idempotencyKey: (req.headers['idempotency-key'] as string | undefined) ?? null,
      authorization: req.headers.authorization ?? null,
      at: Date.now(),
      fault,
      status: null,
    };
    this.seen.push(seen);
    if (fault === 'drop') return void req.socket.destroy();
    if (fault === 'unavailable') return void res.writeHead((seen.status = 503)).end('upstream unavailable');
    if (fault !== null && typeof fault === 'object')
      return void res
        .writeHead((seen.status = 429), { 'retry-after': String(fault.rateLimitedFor) })
        .end('slow down');
    const headers = Object.fromEntries(
      Object.entries(req.headers).filter(
        ([k, v]) => typeof v === 'string' && !['host', 'connection', 'content-length'].includes(k),
      ),
    ) as Record<string, string>;
    const upstream = await fetch(`${this.target}${req.url}`, {
      method,
      headers,
      body: chunks.length ? Buffer.concat(chunks) : undefined,
    });
    const body = Buffer.from(await upstream.arrayBuffer());
    if (fault === 'lost-response') return void res.writeHead((seen.status = 503)).end('gateway timeout');
    seen.status = upstream.status;
    const out: Record<string, string> = {};
    upstream.headers.forEach((v, k) => {
      if (!['content-encoding', 'content-length', 'transfer-encoding', 'connection'].includes(k)) out[k] = v;
    });
    res.writeHead(upstream.status, out).end(body);
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((r) => this.server?.close(r));
  }
}
