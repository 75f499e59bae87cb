import { Injectable } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { ApiError } from '../../common/errors/api-error';
import { newId } from '../../common/ids';
import type { Config } from '../../config/config';
import { InjectConfig } from '../../config/config.module';
import type { UnitOfWork } from '../../database/unit-of-work';
import type { Tenant } from '../platform/tenant';
import { JobQueue } from '../../common/queue/job-queue';
import { passJob } from './pass-job';
import { PassTokens } from './pass-token';
import { PassesRepository } from './passes.repository';

/** A visit's passes: issuing (sent after commit), reissuing, and checking a pass token against its visit. */
@Injectable()
export class PassesService {
  readonly tokens: PassTokens;

  constructor(
    private readonly repo: PassesRepository,
    private readonly jobs: JobQueue,
    private readonly clock: Clock,
    @InjectConfig() config: Config,
  ) {
    this.tokens = new PassTokens(config.secrets.sessionSecret);
  }

  /**
   * A new pending pass of the visit (the caller writes it in `uow`), sent by a job enqueued after commit without
   * holding the request: a job lost on the way is the pass sweeper's (the pass stays pending in PostgreSQL).
   */
  newPass(uow: UnitOfWork, channels: string[]): { id: string; channels: string[]; created_at: Date } {
    const id = newId('pass');
    uow.afterCommit(() => this.jobs.addSoon('visits.send-pass', passJob([id])));
    return { id, channels, created_at: this.clock.now() };
  }

  /** A resent pass: a new pending pass, and the earlier ones revoked. */
  async reissue(uow: UnitOfWork, tenant: Tenant, visitId: string, channels: string[]): Promise<void> {
    const pass = this.newPass(uow, channels);
    await this.repo.insertPass(uow.manager, {
      ...pass,
      organisation_id: tenant.organisationId,
      livemode: tenant.livemode,
      visit_id: visitId,
      status: 'pending',
    });
    await this.repo.revokePasses(uow.manager, visitId, pass.id, pass.created_at);
  }

  /** A pass token shown at check-in must be a current pass of this visit; validation_failed at body.pass. */
  async check(visitId: string, token: string): Promise<void> {
    const refuse = (message: string) => ApiError.validation([{ location: 'body.pass', message }]);
    const passId = this.tokens.passIdOf(token);
    if (!passId) throw refuse('is not a pass token');
    const pass = await this.repo.findPass(passId);
    if (!pass || pass.visit_id !== visitId) throw refuse('is not a pass of this visit');
    if (pass.revoked_at) throw refuse('has been replaced by a newer pass');
  }
}
