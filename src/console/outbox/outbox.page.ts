import { Controller, Get, Query, Req } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../../common/errors/api-error';
import { MessagesService } from '../../visitor/messages/messages.service';
import { CursorCodecProvider } from '../../visitor/platform/cursor-codec.provider';
import { ConsoleAuth, ConsoleTenant, ConsoleTenantOf } from '../auth/console-auth';
import { consoleRoles } from '../frame/console-nav';
import { ConsolePage } from '../frame/console-page';
import { when } from '../frame/overview.page';
import { pagerLinks } from '../frame/pager';
import { toOutbox } from '../front-door/dto/outbox-message.response';

/** A pass link in a message (`{SITE_URL}/passes/<token>`): its path on this app, which serves the pass page. */
const PASS_LINK = /\/passes\/([A-Za-z0-9._~-]+)/g;

/**
 * The test outbox (`/console/outbox`, issue 31 page 10): the messages test mode would have sent (passes and
 * notices), newest first, paged by cursor, each pass link openable. Always the organisation's test mode, whatever
 * the switch says: live messages are really sent. The same list as `GET /console/test-outbox`.
 */
@ApiExcludeController()
@Controller('console/outbox')
@ConsoleAuth(...consoleRoles('/console/outbox'))
export class ConsoleOutboxPageController {
  constructor(
    private readonly messages: MessagesService,
    private readonly cursors: CursorCodecProvider,
  ) {}

  @Get()
  @ConsolePage('console-outbox')
  async show(
    @ConsoleTenant() t: ConsoleTenantOf,
    @Query() query: Record<string, unknown>,
    @Req() req: FastifyRequest,
  ) {
    const tenant = { organisationId: t.organisationId, livemode: false };
    const cursor = typeof query.cursor === 'string' && query.cursor ? query.cursor : undefined;
    let page;
    try {
      page = await this.cursors.codec.createdPage(
        'console-test-outbox',
        tenant,
        { cursor },
        (limit, before) =>
          this.messages.list(
            tenant,
            limit + 1,
            before ? { createdAt: new Date(before.createdAt), id: before.id } : undefined,
          ),
        toOutbox,
      );
    } catch (e) {
      if (!(e instanceof ApiError) || e.code !== 'validation_failed') throw e;
      return {
        title: 'Test outbox',
        messages: [],
        pager: null,
        error: {
          message: 'This page link is out of date; start again from the first page.',
          requestId: String(req.id),
        },
      };
    }
    return {
      title: 'Test outbox',
      livemode: t.livemode,
      messages: page.data.map((m) => ({
        id: m.id,
        channel: m.channel,
        recipient: m.recipient,
        subject: m.subject,
        body: m.body,
        at: when(m.created_at),
        visit: m.related_id?.startsWith('visit_') ? `/console/visits/${m.related_id}?mode=test` : null,
        passes: [...m.body.matchAll(PASS_LINK)].map((x) => `/passes/${x[1]}`),
      })),
      pager: pagerLinks('/console/outbox', query, page),
    };
  }
}
