import { Injectable } from '@nestjs/common';
import { hash, verify } from '@node-rs/argon2';
import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { ApiError, FieldError } from '../../common/errors/api-error';
import { Clock } from '../../common/clock';
import { newId, randomBase62 } from '../../common/ids';
import { Transactions } from '../../database/unit-of-work';
import { Actor, AuditService } from '../audit/audit.service';
import { isRole, Role } from '../platform/scopes';
import { AccountRow, AccountsRepository, ActingAccess } from './accounts.repository';
import { OAuthModelsService } from '../../oauth/oauth-models.service';
import { ConsoleAccount, ConsoleCaller, toConsoleAccount, toConsoleCaller } from './console-caller';

export const SESSION_COOKIE = 'gh_session';
export const SESSION_HOURS = 12;
/** argon2id with the OWASP-recommended minimum (19 MiB, 2 passes, 1 lane). */
const ARGON2 = { memoryCost: 19_456, timeCost: 2, parallelism: 1 };
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

const hashToken = (t: string) => createHash('sha256').update(t).digest('base64url');

export interface AccountInput {
  email: string;
  name: string;
  role: string;
  password: string;
}

export interface SignedIn {
  token: string;
  expiresAt: Date;
  account: ConsoleCaller;
}

/** People who use the console: e-mail and password (argon2id), sessions in a secure cookie, roles. */
@Injectable()
export class AccountsService {
  /** Verifying against this when the e-mail is unknown keeps sign-in time the same either way. */
  private dummyHash: Promise<string> | null = null;

  constructor(
    private readonly repo: AccountsRepository,
    private readonly models: OAuthModelsService,
    private readonly audit: AuditService,
    private readonly tx: Transactions,
    private readonly clock: Clock,
  ) {}

  /** The account, null when unknown. */
  async findById(id: string): Promise<ConsoleAccount | null> {
    const row = await this.repo.findById(id);
    return row && toConsoleAccount(row);
  }

  /** E-mail addresses of the organisation's Owners and Admins (whom a disabled webhook endpoint is reported to). */
  adminEmails(organisationId: string): Promise<string[]> {
    return this.repo.adminEmails(organisationId);
  }

  /** The account's current role and its organisation's access facts (an OAuth token acts with today's role). */
  actingAccess(accountId: string, organisationId: string): Promise<ActingAccess | null> {
    return this.repo.actingAccess(accountId, organisationId);
  }

  /**
   * Sets a new password (operator action: the demo command); audited. The person's other sessions end in the same
   * transaction (all of them, unless `keepSessionToken` names the session making the change), so a session
   * opened with the old password does not outlive it.
   */
  async resetPassword(
    account: ConsoleCaller,
    password: string,
    actor: Actor,
    keepSessionToken: string | null = null,
  ): Promise<void> {
    if (password.length < 12)
      throw ApiError.validation([{ location: 'body.password', message: 'must be at least 12 characters' }]);
    const passwordHash = await hash(password, ARGON2);
    await this.tx.run(async (uow) => {
      const ended = await this.repo.changePassword(
        uow.manager,
        account.id,
        passwordHash,
        this.clock.now(),
        keepSessionToken && hashToken(keepSessionToken),
      );
      await this.models.endSessions(uow, account.id);
      await this.audit.record(
        {
          organisationId: account.organisation_id,
          livemode: null,
          action: 'console_account.password_reset',
          actor,
          target: { type: 'console_account', id: account.id },
          data: { sessions_ended: ended },
        },
        uow.manager,
      );
    });
  }

  async create(organisationId: string, input: AccountInput, actor: Actor): Promise<AccountRow> {
    const errors: FieldError[] = [];
    if (typeof input.email !== 'string' || !EMAIL.test(input.email))
      errors.push({ location: 'body.email', message: 'must be an e-mail address' });
    if (typeof input.name !== 'string' || input.name.trim() === '')
      errors.push({ location: 'body.name', message: 'is required' });
    if (!isRole(input.role))
      errors.push({ location: 'body.role', message: 'must be owner, admin, member or support' });
    if (typeof input.password !== 'string' || input.password.length < 12)
      errors.push({ location: 'body.password', message: 'must be at least 12 characters' });
    if (errors.length) throw ApiError.validation(errors);
    const row: AccountRow = {
      id: newId('acct'),
      organisation_id: organisationId,
      email: input.email.trim(),
      name: input.name.trim(),
      role: input.role as Role,
      password_hash: await hash(input.password, ARGON2),
      disabled_at: null,
      last_sign_in_at: null,
      created_at: this.clock.now(),
    };
    return this.tx.run(async (uow) => {
      if ((await this.repo.insert(uow.manager, row)) === 'email_taken')
        throw new ApiError('conflict', `A console account with the e-mail ${row.email} already exists.`, [
          { location: 'body.email', message: 'is already used' },
        ]);
      await this.audit.record(
        {
          organisationId,
          livemode: null,
          action: 'console_account.created',
          actor,
          target: { type: 'console_account', id: row.id },
          data: { role: row.role },
        },
        uow.manager,
      );
      return row;
    });
  }

  async signIn(email: string, password: string, req: FastifyRequest): Promise<SignedIn> {
    const account = await this.repo.findByEmail(email);
    const ok = account
      ? await verify(account.password_hash, password)
      : (await verify(await (this.dummyHash ??= hash(randomBase62(24), ARGON2)), password), false);
    if (!account || !ok || account.disabled_at) {
      if (account)
        await this.audit.record({
          organisationId: account.organisation_id,
          livemode: null,
          action: 'console.sign_in_failed',
          actor: { type: 'console_account', id: account.id },
          request: req,
        });
      throw new ApiError('unauthorized', 'The e-mail or password is not correct.');
    }
    const token = `gh_sess_${randomBase62(40)}`;
    const now = this.clock.now();
    const expiresAt = new Date(now.getTime() + SESSION_HOURS * 3_600_000);
    await this.tx.run(async (uow) => {
      await this.repo.insertSession(uow.manager, hashToken(token), account.id, now, expiresAt);
      await this.repo.markSignedIn(uow.manager, account.id, now);
      await this.audit.record(
        {
          organisationId: account.organisation_id,
          livemode: null,
          action: 'console.signed_in',
          actor: { type: 'console_account', id: account.id },
          request: req,
        },
        uow.manager,
      );
    });
    return { token, expiresAt, account: toConsoleCaller(account) };
  }

  async session(token: string): Promise<ConsoleCaller | null> {
    const row = await this.repo.sessionAccount(hashToken(token), this.clock.now());
    return row && toConsoleCaller(row);
  }

  async signOut(token: string): Promise<void> {
    await this.repo.revokeSession(hashToken(token), this.clock.now());
  }
}
