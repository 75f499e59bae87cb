import { applyDecorators, Controller, Get, Header, Req, StreamableFile } from '@nestjs/common';
import { ApiHeader, ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { Authorize } from '../platform/authorize.decorator';
import { CurrentScopes, CurrentTenant } from '../platform/current';
import type { Scope } from '../platform/scopes';
import type { Tenant } from '../platform/tenant';
import { EventStreamService, RESUME_LIMIT } from './event-stream.service';
import { HEARTBEAT_MS } from './sse-streams';

const SSE = {
  description: `A \`text/event-stream\` that stays open; a comment line every ${HEARTBEAT_MS / 1000} s keeps it alive.`,
  content: { 'text/event-stream': { schema: { type: 'string' as const } } },
};
/** What a stream's answer says besides its body: never cached, never buffered by a proxy. */
const StreamHeaders = () =>
  applyDecorators(Header('Cache-Control', 'no-cache, no-transform'), Header('X-Accel-Buffering', 'no'));

const TEST_ONLY =
  'Test mode only (a live-mode credential gets `forbidden`): a development tool, used by `gatehouse-dev listen` and `gatehouse-dev logs tail`.';

/** The test-mode streams (docs/architecture.md "Event streams"): events and requests as they happen, over SSE. */
@ApiTags('Events')
@Controller('v1')
export class EventStreamController {
  constructor(private readonly streams: EventStreamService) {}

  @Get('events/stream')
  @Authorize({ scope: 'events:read', plan: 'webhooks' })
  @ApiOperation({
    summary: 'Stream new test-mode events (SSE)',
    description: `${TEST_ONLY} Each event recorded from now on, by any instance, arrives as an SSE message whose \`id\` is the event id, \`event\` its type and \`data\` the envelope receivers get; only types the credential may read (see listEvents). Sending \`Last-Event-ID\` (an event id) first replays up to ${RESUME_LIMIT} events recorded after that one.`,
    operationId: 'streamEvents',
  })
  @ApiProduces('text/event-stream')
  @StreamHeaders()
  @ApiHeader({ name: 'Last-Event-ID', required: false, description: 'Resume after this event (`evt_…`)' })
  @ApiOkResponse(SSE)
  events(
    @CurrentTenant() tenant: Tenant,
    @CurrentScopes() scopes: ReadonlySet<Scope>,
    @Req() req: FastifyRequest,
  ): Promise<StreamableFile> {
    const lastEventId = req.headers['last-event-id'];
    return this.streams.streamEvents(
      tenant,
      scopes,
      typeof lastEventId === 'string' && lastEventId ? lastEventId : undefined,
      req,
    );
  }

  @Get('requests/stream')
  @Authorize({ scope: 'audit:read' })
  @ApiOperation({
    summary: "Stream the organisation's test-mode requests (SSE)",
    description: `${TEST_ONLY} Each request made with one of the organisation's test-mode credentials arrives, once the request log has written it (within about a second), as an SSE message \`request\` whose \`data\` is the logged request (method, path with secret-looking query values redacted, status, error code, duration).`,
    operationId: 'streamRequests',
  })
  @ApiProduces('text/event-stream')
  @StreamHeaders()
  @ApiOkResponse(SSE)
  requests(@CurrentTenant() tenant: Tenant, @Req() req: FastifyRequest): Promise<StreamableFile> {
    return this.streams.streamRequests(tenant, req);
  }
}
