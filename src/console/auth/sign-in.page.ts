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
import type { Config } from '../../config/config';
import { InjectConfig } from '../../config/config.module';
import { landingFor, safeConsolePath } from '../frame/console-nav';
import { secureCookies, sessionCookie } from './session.controller';

/** Where a sign-in may send the browser next: a console path of this site, nothing else (else the landing page). */
const safeNext = (next: string | undefined) => safeConsolePath(next) ?? '';

const NOTICES: Record<string, string> = {
  'sign-in': 'The e-mail or password is not correct.',
  locked: 'Too many wrong passwords for this address. Wait a few minutes and try again.',
  'signed-out': 'You are signed out.',
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
    @InjectConfig() private readonly config: Config,
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
      void reply.header('Set-Cookie', sessionCookie(s.token, secureCookies(this.config)));
      // `next` when the person's role may open it, else the first page their role allows (never "Not allowed").
      return { url: landingFor(s.account.role, next || null), statusCode: 303 };
    } catch (e) {
      if (!(e instanceof ApiError) || (e.code !== 'unauthorized' && e.code !== 'rate_limited')) throw e;
      const notice = e.code === 'unauthorized' ? 'sign-in' : 'locked';
      const again = next ? `next=${encodeURIComponent(next)}&` : '';
      return { url: `/console/sign-in?${again}notice=${notice}`, statusCode: 303 };
    }
  }
}
