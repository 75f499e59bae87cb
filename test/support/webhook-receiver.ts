import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** When the whole request had arrived. */
  at: number;
  /** When its first bytes arrived. */
  arrivedAt: number;
  /** When the exchange ended (answer written, or connection gone): null while it is open. */
  endedAt: number | null;
}

/**
 * A real HTTP receiver on 127.0.0.1. Paths choose the behaviour: `/ok` 204, `/fail` 500, `/slow` answers after
 * 2 s, `/redirect` 302 to /ok, `/hang-once` never answers the first request and 204s the rest, `/echo` answers
 * 200 with the payload it was sent (a receiver whose stored answer holds the payload's personal data), `/nul`
 * answers 200 with bytes PostgreSQL text cannot hold (a NUL, and a byte that is not UTF-8), `/held`
 * 204s after 100 ms (so attempts of one delivery sent at the same time would overlap in `arrivedAt`–`endedAt`;
 * `pause()` holds its answers until `resume()`).
 */
export class WebhookReceiver {
  readonly received: Received[] = [];
  private server: Server | null = null;
  private hung = false;
  private paused: (() => void)[] | null = null;
  port = 0;

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const arrivedAt = Date.now();
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const path = req.url ?? '/';
        const got: Received = {
          path,
          headers: req.headers,
          body,
          at: Date.now(),
          arrivedAt,
          endedAt: null,
        };
        res.on('close', () => (got.endedAt = Date.now()));
        this.received.push(got);
        if (path.startsWith('/ok')) return void res.writeHead(204).end();
        if (path.startsWith('/held')) {
          const answer = () => void (res.destroyed || res.writeHead(204).end());
          return void setTimeout(() => (this.paused ? this.paused.push(answer) : answer()), 100).unref();
        }
        if (path.startsWith('/echo'))
          return void res.writeHead(200, { 'content-type': 'application/json' }).end(body);
        if (path.startsWith('/fail'))
          return void res.writeHead(500, { 'content-type': 'text/plain' }).end('receiver exploded');
        if (path.startsWith('/nul'))
          return void res
            .writeHead(200, { 'content-type': 'application/octet-stream' })
            .end(Buffer.from([0x6f, 0x6b, 0x00, 0xff, 0x21]));
        if (path.startsWith('/slow'))
          return void setTimeout(() => res.writeHead(200).end('late'), 2000).unref();
        if (path.startsWith('/redirect'))
          return void res.writeHead(302, { location: `http://127.0.0.1:${this.port}/ok` }).end();
        if (path.startsWith('/hang-once')) {
          if (!this.hung) return void (this.hung = true);
          return void res.writeHead(204).end();
        }
        res.writeHead(404).end();
      });
    });
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    this.port = (this.server!.address() as AddressInfo).port;
    return this;
  }

  /** Answers of `/held` due from now on wait for `resume()`: a sender that dies meanwhile never gets one. */
  pause(): void {
    this.paused ??= [];
  }

  resume(): void {
    const due = this.paused ?? [];
    this.paused = null;
    for (const answer of due) answer();
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  on(path: string): Received[] {
    return this.received.filter((r) => r.path === path);
  }

  async waitFor(path: string, count: number, ms = 15_000): Promise<Received[]> {
    const end = Date.now() + ms;
    while (Date.now() < end) {
      if (this.on(path).length >= count) return this.on(path);
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`expected ${count} request(s) on ${path}, got ${this.on(path).length}`);
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((r) => this.server?.close(r));
  }
}
