import { Controller, Get, Headers, Req, Res } from '@nestjs/common';
import { ApiHeader, ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
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
  @ApiHeader({ name: 'Last-Event-ID', required: false, description: 'Resume after this event (`evt_…`)' })
  @ApiOkResponse(SSE)
  events(
    @CurrentTenant() tenant: Tenant,
    @CurrentScopes() scopes: ReadonlySet<Scope>,
    @Headers('last-event-id') lastEventId: string | undefined,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    return this.streams.streamEvents(tenant, scopes, lastEventId || undefined, req, reply);
  }

  @Get('requests/stream')
  @Authorize({ scope: 'audit:read' })
  @ApiOperation({
    summary: "Stream the organisation's test-mode requests (SSE)",
    description: `${TEST_ONLY} Each request made with one of the organisation's test-mode credentials arrives, once the request log has written it (within about a second), as an SSE message \`request\` whose \`data\` is the logged request (method, path with secret-looking query values redacted, status, error code, duration).`,
    operationId: 'streamRequests',
  })
  @ApiProduces('text/event-stream')
  @ApiOkResponse(SSE)
  requests(
    @CurrentTenant() tenant: Tenant,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    return this.streams.streamRequests(tenant, req, reply);
  }
}
