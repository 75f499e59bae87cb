import { Body, Controller, Get, Post, Query, Req, Res, UseGuards } from '@nestjs/common';
import { ConsolePublic } from '../console-access';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../common/errors/api-error';
import { CsrfToken, Page } from '../../pages/page.decorator';
import { PostedForm } from '../../pages/posted-form';
import { AccountsService } from '../../visitor/accounts/accounts.service';
import { SignInAttempts } from '../../visitor/accounts/sign-in-attempts';
import { SignInLimitGuard } from '../../visitor/accounts/sign-in-limit.guard';
import { sessionCookie } from './session.controller';

/** Where a sign-in may send the browser next: a console page of this site, nothing else. */
const safeNext = (next: string | undefined) =>
  next && /^\/console\/[A-Za-z0-9/_-]*$/.test(next) ? next : '/console/apps';

const NOTICES: Record<string, string> = {
  'sign-in': 'The e-mail or password is not correct.',
  locked: 'Too many wrong passwords for this address. Wait a few minutes and try again.',
};

/**
 * The console's sign-in page (`/console/sign-in`): the same accounts, limits and session cookie as
 * `POST /console/session`, for people in a browser. Console pages send people here.
 */
@ApiExcludeController()
@ConsolePublic()
@Controller('console/sign-in')
export class ConsoleSignInPageController {
  constructor(
    private readonly accounts: AccountsService,
    private readonly attempts: SignInAttempts,
  ) {}

  @Get()
  @Page('console-sign-in')
  show(@CsrfToken() csrf: string, @Query('next') next?: string, @Query('notice') notice?: string) {
    return {
      title: 'Sign in',
      csrf,
      next: safeNext(next),
      notice: notice ? (NOTICES[notice] ?? null) : null,
    };
  }

  @Post()
  @PostedForm()
  @UseGuards(SignInLimitGuard)
  async signIn(
    @Req() req: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
    @Body() form: Record<string, string | undefined>,
  ) {
    const email = form.email ?? '';
    const next = safeNext(form.next);
    try {
      const s = await this.accounts.signIn(email, form.password ?? '', req).catch(async (e: unknown) => {
        throw e instanceof ApiError && e.code === 'unauthorized'
          ? await this.attempts.failed(email, req.ip, e)
          : e;
      });
      void reply.header('Set-Cookie', sessionCookie(s.token));
      return { url: next, statusCode: 303 };
    } catch (e) {
      if (!(e instanceof ApiError) || (e.code !== 'unauthorized' && e.code !== 'rate_limited')) throw e;
      const notice = e.code === 'unauthorized' ? 'sign-in' : 'locked';
      return { url: `/console/sign-in?next=${encodeURIComponent(next)}&notice=${notice}`, statusCode: 303 };
    }
  }
}
