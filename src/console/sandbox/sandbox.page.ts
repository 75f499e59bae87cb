import { Controller, Get, Post, Req } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { CsrfToken } from '../../pages/page.decorator';
import { PostedForm } from '../../pages/posted-form';
import type { ConsoleCaller } from '../../visitor/accounts/console-caller';
import { SandboxReset } from '../../visitor/test-helpers/sandbox-reset.service';
import { ConsoleAuth, CurrentAccount } from '../auth/console-auth';
import { ConsolePage } from '../frame/console-page';

/** Who may reset the test data: the roles the API gives `visitors:delete` (POST /v1/test-helpers/sandbox/reset). */
export const SANDBOX_RESETTERS = ['owner', 'admin'] as const;

/**
 * The sandbox reset from the console (issue 33): a confirmation page, then `SandboxReset` — the same service as
 * POST /v1/test-helpers/sandbox/reset and `gatehouse sandbox reset` — for the signed-in organisation's test mode,
 * whichever mode the console shows; audited as the console account. The overview links here in test mode.
 */
@ApiExcludeController()
@Controller('console/sandbox/reset')
@ConsoleAuth(...SANDBOX_RESETTERS)
export class ConsoleSandboxPageController {
  constructor(private readonly sandbox: SandboxReset) {}

  @Get()
  @ConsolePage('console-confirm')
  confirm(@CsrfToken() csrf: string) {
    return {
      title: 'Delete all test data?',
      question:
        'Every test-mode visit, visitor, pass, booking, event and webhook delivery, message in the test outbox, delivery, roll call, clock event, file and watchlist match is deleted. Sites, people, visit and booking types, forms, shifts, API keys, webhook endpoints, watchlist entries and the audit trail stay. Live data is not touched. This cannot be undone.',
      action: '/console/sandbox/reset?mode=test',
      confirmLabel: 'Delete test data',
      cancel: '/console?mode=test',
      csrf,
    };
  }

  @Post()
  @PostedForm()
  async reset(@CurrentAccount() a: ConsoleCaller, @Req() req: FastifyRequest) {
    await this.sandbox.reset(a.organisation_id, { type: 'console_account', id: a.id }, req);
    return { url: '/console?mode=test&notice=sandbox-reset', statusCode: 303 };
  }
}
