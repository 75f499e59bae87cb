import { Body, Controller, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config/config';
import { InjectConfig } from '../../config/config.module';
import { PostedForm } from '../../pages/posted-form';
import { AccountsService } from '../../visitor/accounts/accounts.service';
import { ConsoleAuth, sessionToken } from '../auth/console-auth';
import { secureCookies, sessionCookie } from '../auth/session.controller';
import { modeCookie } from '../console-mode';
import { safeConsolePath } from './console-nav';

/**
 * The frame's own actions, for every signed-in person: the live/test switch (`POST /console/mode`, remembered in
 * the `gh_mode` cookie) and sign-out (`POST /console/sign-out`). Both are forms with a CSRF token.
 */
@ApiExcludeController()
@Controller('console')
@ConsoleAuth()
export class ConsoleFrameController {
  constructor(
    private readonly accounts: AccountsService,
    @InjectConfig() private readonly config: Config,
  ) {}

  @Post('mode')
  @PostedForm()
  switchMode(
    @Res({ passthrough: true }) reply: FastifyReply,
    @Body() form: Record<string, string | undefined>,
  ) {
    const mode = form.mode === 'live' ? 'live' : 'test';
    void reply.header('Set-Cookie', modeCookie(mode, secureCookies(this.config)));
    return { url: safeConsolePath(form.back) ?? '/console', statusCode: 303 };
  }

  @Post('sign-out')
  @PostedForm()
  async signOut(@Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    const token = sessionToken(req);
    if (token) await this.accounts.signOut(token);
    void reply.header('Set-Cookie', sessionCookie('', secureCookies(this.config)));
    return { url: '/console/sign-in?notice=signed-out', statusCode: 303 };
  }
}
