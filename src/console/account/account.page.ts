import { Body, Controller, Get, Post, Query, Req } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../../common/errors/api-error';
import { CsrfToken } from '../../pages/page.decorator';
import { PostedForm } from '../../pages/posted-form';
import { AccountsService } from '../../visitor/accounts/accounts.service';
import type { ConsoleCaller } from '../../visitor/accounts/console-caller';
import { SignInAttempts } from '../../visitor/accounts/sign-in-attempts';
import {
  ConsoleAuth,
  ConsoleTenant,
  ConsoleTenantOf,
  CurrentAccount,
  sessionToken,
} from '../auth/console-auth';
import { ConsolePage } from '../frame/console-page';

const PATH = '/console/account';
const MIN_LENGTH = 12;
const NOTICES: Record<string, string> = {
  'password-changed': 'Password changed; your other sessions are signed out.',
};
const ERRORS = {
  wrong: 'the current password is not correct.',
  short: `the new password must be at least ${MIN_LENGTH} characters.`,
  differ: 'the two new passwords differ.',
  locked: 'too many wrong passwords for this address. Wait a few minutes and try again.',
};

/**
 * The signed-in person's own page (`/console/account`, every role that signs in): who they are, and changing their
 * password. The current password is checked as sign-in checks it (and wrong ones count towards the sign-in lock of
 * the address); on success this session stays and every other session of the person ends (`resetPassword`).
 */
@ApiExcludeController()
@Controller('console/account')
@ConsoleAuth()
export class ConsoleAccountPageController {
  constructor(
    private readonly accounts: AccountsService,
    private readonly attempts: SignInAttempts,
  ) {}

  @Get()
  @ConsolePage('console-account')
  show(
    @CurrentAccount() a: ConsoleCaller,
    @ConsoleTenant() t: ConsoleTenantOf,
    @CsrfToken() csrf: string,
    @Query() query: Record<string, string | undefined>,
  ) {
    const error = query.error && Object.hasOwn(ERRORS, query.error) ? query.error : null;
    return {
      title: 'Your account',
      csrf,
      notice: query.notice && Object.hasOwn(NOTICES, query.notice) ? NOTICES[query.notice] : null,
      error: error && {
        message: `Password not changed: ${ERRORS[error as keyof typeof ERRORS]}`,
        requestId: (query.rid ?? '').slice(0, 80),
      },
      person: { name: a.name, email: a.email, role: a.role, organisation: t.organisationName },
      minLength: MIN_LENGTH,
    };
  }

  @Post('password')
  @PostedForm()
  async changePassword(
    @CurrentAccount() a: ConsoleCaller,
    @Req() req: FastifyRequest,
    @Body() form: Record<string, string | undefined>,
  ) {
    const back = (query: Record<string, string>) => ({
      url: `${PATH}?${new URLSearchParams(query)}`,
      statusCode: 303,
    });
    // A refusal comes back to the form (post, redirect, get) as a code of ERRORS and the request id.
    const refuse = (error: keyof typeof ERRORS) => back({ error, rid: String(req.id) });
    const password = form.password ?? '';
    if (password.length < MIN_LENGTH) return refuse('short');
    if (password !== (form.password_again ?? '')) return refuse('differ');
    try {
      await this.attempts.admit(a.email, req.ip);
      if (!(await this.accounts.passwordMatches(a.id, form.current_password ?? '')))
        throw await this.attempts.failed(a.email, req.ip, new ApiError('unauthorized', ERRORS.wrong));
    } catch (e) {
      if (!(e instanceof ApiError) || (e.code !== 'unauthorized' && e.code !== 'rate_limited')) throw e;
      return refuse(e.code === 'unauthorized' ? 'wrong' : 'locked');
    }
    // This session stays; every other console session and OAuth sign-in session of the person ends (audited).
    await this.accounts.resetPassword(
      a,
      password,
      { type: 'console_account', id: a.id },
      sessionToken(req),
      req,
    );
    return back({ notice: 'password-changed' });
  }
}
