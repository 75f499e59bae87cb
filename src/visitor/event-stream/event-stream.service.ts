import { Injectable, StreamableFile } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../../common/errors/api-error';
import { toRequestLogResponse } from '../../ops/request-log/dto/request-log.response';
import type { RequestLogEntry } from '../../ops/request-log/request-log.entry';
import { RequestLogService } from '../../ops/request-log/request-log.service';
import { EventsQuery } from '../events/dto/events.query';
import { EventsService } from '../events/events.service';
import type { Scope } from '../platform/scopes';
import type { Tenant } from '../platform/tenant';
import { PgNotifications } from './pg-notifications';
import { SseStream, SseStreams } from './sse-streams';

/** At most this many missed events are replayed to a stream resumed with `Last-Event-ID`. */
export const RESUME_LIMIT = 100;

/** Refuses a live-mode credential: the streams are a development tool over test-mode data. */
function testModeOnly(tenant: Tenant, what: string): void {
  if (tenant.livemode)
    throw new ApiError(
      'forbidden',
      `${what} streams test-mode data only; this credential is live. Use a test-mode key (svc_sk_test_…).`,
    );
}

/**
 * The test-mode streams (GET /v1/events/stream, GET /v1/requests/stream). Events: the event table's insert of a
 * test-mode event sends `NOTIFY gatehouse_event` in the recording transaction (delivered on commit, to every
 * instance, also for events the worker records); each instance's streams of that tenant read the event through EventsService (so the reader's scopes
 * apply) and send it. Requests: the request log notifies `gatehouse_request_log` after it wrote a batch holding
 * test-mode requests; the batch is read once per instance and each stream gets its organisation's requests.
 */
@Injectable()
export class EventStreamService {
  constructor(
    private readonly events: EventsService,
    private readonly requestLog: RequestLogService,
    private readonly notifications: PgNotifications,
    private readonly streams: SseStreams,
  ) {}

  /** GET /v1/events/stream: the tenant's new events readable with `scopes`, after `lastEventId`'s when given. */
  async streamEvents(
    tenant: Tenant,
    scopes: ReadonlySet<Scope>,
    lastEventId: string | undefined,
    req: FastifyRequest,
  ): Promise<StreamableFile> {
    testModeOnly(tenant, 'The event stream');
    // Checked before the stream opens, so an unknown id is an ordinary error response.
    const resumeAfter = lastEventId ? await this.events.find(tenant, scopes, lastEventId) : null;
    const sent = new Set<string>();
    let queue = Promise.resolve();
    let stream: SseStream | null = null;
    const pending: string[] = [];
    const sendEvent = async (id: string) => {
      if (!stream || stream.ended || sent.has(id)) return;
      const row = await this.events.find(tenant, scopes, id).catch(() => null);
      if (!row || stream.ended || sent.has(id)) return;
      sent.add(id);
      stream.send(row.id, row.type, row.body);
    };
    // Notifications are handled one after the other, in commit order.
    const enqueue = (id: string) => (queue = queue.then(() => sendEvent(id)).catch(() => undefined));
    const stop = await this.notifications.listen('gatehouse_event', (payload) => {
      const [org, id] = payload.split(' ');
      if (org !== tenant.organisationId) return;
      if (stream) enqueue(id);
      else pending.push(id);
    });
    const opened = (stream = this.streams.start(req));
    stream.onClose(stop);
    if (resumeAfter) {
      const missed = await this.events.list(
        tenant,
        scopes,
        Object.assign(new EventsQuery(), {
          limit: RESUME_LIMIT,
          created_after: new Date(resumeAfter.createdAt).toISOString(),
        }),
      );
      for (const e of missed.data.reverse()) enqueue(e.id);
    }
    for (const id of pending) enqueue(id);
    return opened.file;
  }

  /** GET /v1/requests/stream: the tenant's test-mode requests once the request log has written them. */
  async streamRequests(tenant: Tenant, req: FastifyRequest): Promise<StreamableFile> {
    testModeOnly(tenant, 'The request log');
    let stream: SseStream | null = null;
    const stop = await this.notifications.listen('gatehouse_request_log', (payload) => {
      const [first, last] = payload.split(' ');
      void this.batch(first, last).then((entries) => {
        for (const e of entries)
          if (stream && e.organisationId === tenant.organisationId && e.livemode === false)
            stream.send(e.requestId, 'request', JSON.stringify(toRequestLogResponse(e)));
      });
    });
    const opened = (stream = this.streams.start(req));
    stream.onClose(stop);
    return opened.file;
  }

  /** One written batch, read once however many streams of this instance want it. */
  private readonly batches = new Map<string, Promise<RequestLogEntry[]>>();
  private batch(first: string, last: string): Promise<RequestLogEntry[]> {
    const key = `${first} ${last}`;
    let p = this.batches.get(key);
    if (!p) {
      p = this.requestLog.batch(first, last).catch(() => []);
      this.batches.set(key, p);
      void p.then(() => setTimeout(() => this.batches.delete(key), 1000).unref());
    }
    return p;
  }
}
