import { Body, Controller, Delete, Get, HttpCode, Post, Req, Res, UseGuards } from '@nestjs/common';
import { ConsolePublic } from '../console-access';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ConsoleCaller } from '../../visitor/accounts/console-caller';
import { AccountsService, SESSION_COOKIE, SESSION_HOURS } from '../../visitor/accounts/accounts.service';
import { SignInAttempts } from '../../visitor/accounts/sign-in-attempts';
import { SignInLimitGuard } from '../../visitor/accounts/sign-in-limit.guard';
import { ApiError } from '../../common/errors/api-error';
import type { Config } from '../../config/config';
import { InjectConfig } from '../../config/config.module';
import { ConsoleAuth, CurrentAccount, sessionToken } from './console-auth';
import { SignInBody } from './dto/sign-in.request';
import { ConsoleAccountResponse, toAccountResponse } from './dto/console-account.response';
/**
 * The console session cookie (HttpOnly, SameSite=Lax, Path=/console, and Secure when APP_URL is HTTPS); an empty
 * token clears it. Lax lets a link from an e-mail or another site open a console page signed in; every change is
 * a POST, which Lax does not send cross-site, and carries a CSRF token (pages) or is JSON-only (endpoints).
 */
export const sessionCookie = (token: string, secure: boolean) =>
  `${SESSION_COOKIE}=${token}; Path=/console; HttpOnly;${secure ? ' Secure;' : ''} SameSite=Lax; Max-Age=${token ? SESSION_HOURS * 3600 : 0}`;

/** Whether cookies of this deployment are marked `Secure` (APP_URL is HTTPS). */
export const secureCookies = (config: Config): boolean => config.appUrl.startsWith('https:');

/**
 * Console sign-in. The session is an opaque token in the `gh_session` cookie (`sessionCookie`); console bodies
 * are JSON only, so a cross-site form cannot post to it.
 */
@ApiTags('Console')
@Controller('console/session')
export class SessionController {
  constructor(
    private readonly accounts: AccountsService,
    private readonly attempts: SignInAttempts,
    @InjectConfig() private readonly config: Config,
  ) {}

  @Post()
  @HttpCode(200)
  @ConsolePublic()
  @UseGuards(SignInLimitGuard)
  @ApiOperation({ summary: 'Sign in with e-mail and password; sets the session cookie' })
  @ApiOkResponse({ type: ConsoleAccountResponse })
  async signIn(
    @Body() body: SignInBody,
    @Req() req: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ConsoleAccountResponse> {
    const s = await this.accounts.signIn(body.email, body.password, req).catch(async (e: unknown) => {
      throw e instanceof ApiError && e.code === 'unauthorized'
        ? await this.attempts.failed(body.email, req.ip, e)
        : e;
    });
    void reply.header('Set-Cookie', sessionCookie(s.token, secureCookies(this.config)));
    return toAccountResponse(s.account);
  }

  @Get()
  @ConsoleAuth()
  @ApiOperation({ summary: 'The signed-in account' })
  @ApiOkResponse({ type: ConsoleAccountResponse })
  me(@CurrentAccount() account: ConsoleCaller): ConsoleAccountResponse {
    return toAccountResponse(account);
  }

  @Delete()
  @HttpCode(204)
  @ConsoleAuth()
  @ApiOperation({ summary: 'Sign out (ends the session)' })
  async signOut(@Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<void> {
    const token = sessionToken(req);
    if (token) await this.accounts.signOut(token);
    void reply.header('Set-Cookie', sessionCookie('', secureCookies(this.config)));
  }
}
