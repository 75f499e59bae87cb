import { BeforeApplicationShutdown, Injectable, StreamableFile } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { PassThrough } from 'node:stream';

/** A comment line every this many milliseconds keeps proxies and clients from timing an idle stream out. */
export const HEARTBEAT_MS = 15_000;

/** One open `text/event-stream` response: `file` is what the handler returns. */
export class SseStream {
  private readonly body = new PassThrough();
  readonly file: StreamableFile;
  private readonly heartbeat: NodeJS.Timeout;
  private readonly onEnd: (() => void)[] = [];
  ended = false;

  constructor() {
    // Nest destroys the body once the response has closed (the client went away): the stream stops there.
    this.body.once('close', () => this.end());
    this.heartbeat = setInterval(() => this.write(': heartbeat\n\n'), HEARTBEAT_MS);
    this.heartbeat.unref();
    this.file = new StreamableFile(this.body, { type: 'text/event-stream; charset=utf-8' });
    this.file.setErrorHandler(() => this.end());
    // The headers go now, so the client knows the stream is open before the first event.
    this.write(`: stream open\nretry: 2000\n\n`);
  }

  /** One event: `id` is what a reconnecting client sends back as `Last-Event-ID`. */
  send(id: string, event: string, data: string): void {
    this.write(`id: ${id}\nevent: ${event}\ndata: ${data.replace(/\n/g, '\ndata: ')}\n\n`);
  }

  /** Calls `fn` once when the stream ends (client gone, shutdown or error). */
  onClose(fn: () => void): void {
    if (this.ended) fn();
    else this.onEnd.push(fn);
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    clearInterval(this.heartbeat);
    this.body.end();
    for (const fn of this.onEnd.splice(0)) fn();
  }

  private write(text: string): void {
    if (!this.ended) this.body.write(text);
  }
}

/**
 * The open streams of this instance. Shutdown ends them all first (an open stream would otherwise keep the HTTP
 * server from closing), and a stream asked for during shutdown ends at once.
 */
@Injectable()
export class SseStreams implements BeforeApplicationShutdown {
  private readonly open = new Set<SseStream>();
  private closing = false;

  start(req: FastifyRequest): SseStream {
    const s = new SseStream();
    // A HEAD request gets the headers only; a stream asked for during shutdown ends at once.
    if (this.closing || req.method === 'HEAD') s.end();
    else {
      this.open.add(s);
      s.onClose(() => this.open.delete(s));
    }
    return s;
  }

  beforeApplicationShutdown(): void {
    this.closing = true;
    for (const s of [...this.open]) s.end();
  }
}
