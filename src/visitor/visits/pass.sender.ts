import { Injectable } from '@nestjs/common';
import type { Config } from '../../config/config';
import { InjectConfig } from '../../config/config.module';
import { Clock } from '../../common/clock';
import { Transactions } from '../../database/unit-of-work';
import type { Channel } from '../messages/messages.service';
import { MessagesService } from '../messages/messages.service';
import { OrganisationsService } from '../organisations/organisations.service';
import { PassesService } from './passes.service';
import { VisitsService } from './visits.service';
import { PassesRepository } from './passes.repository';
import { VisitsRepository } from './visits.repository';
import { localWhen } from '../messages/local-time';

export type PassOutcome = 'sent' | 'failed' | 'skipped';

/**
 * Sends one pass: claims it (exactly one sender wins), sends the link on the first channel of the visit's
 * `pass_channels` that works (the test outbox in test mode), then records `pass.sent` with the visit and
 * `pass.last_sent_at` in one transaction.
 */
@Injectable()
export class PassSender {
  constructor(
    private readonly repo: VisitsRepository,
    private readonly passRows: PassesRepository,
    private readonly orgs: OrganisationsService,
    private readonly messages: MessagesService,
    private readonly visits: VisitsService,
    private readonly passes: PassesService,
    private readonly tx: Transactions,
    private readonly clock: Clock,
    @InjectConfig() private readonly config: Config,
  ) {}

  async send(passId: string): Promise<PassOutcome> {
    return this.tx.run(async (uow) => {
      const pass = await this.passRows.claimPass(uow.manager, passId);
      if (!pass) return 'skipped';
      const tenant = { organisationId: pass.organisation_id, livemode: pass.livemode };
      const visit = await this.repo.find(tenant, pass.visit_id, uow.manager);
      const now = this.clock.now();
      if (!visit || !visit.visitor_phone) {
        await this.passRows.finishPass(
          uow.manager,
          passId,
          { status: 'failed', channel: null, messageId: null, error: 'visitor erased' },
          now,
        );
        return 'failed';
      }
      const org = await this.orgs.findOrganisation(tenant.organisationId, uow);
      const site = await this.orgs.findSite(tenant, visit.site_id, uow);
      const when = visit.expected_at ? ` on ${localWhen(visit.expected_at, site?.time_zone ?? 'UTC')}` : '';
      const link = this.passes.tokens.link(this.config.siteUrl, passId);
      const outcome = await this.messages.send(
        tenant,
        pass.channels as Channel[],
        {
          to: { phone: visit.visitor_phone, email: visit.visitor_email },
          subject: `Your visitor pass for ${org?.name ?? 'your visit'}`,
          body: `Hello ${visit.visitor_name ?? ''}, your pass for ${site?.name ?? 'your visit'}${when}: ${link}`,
          relatedId: visit.id,
        },
        uow.manager,
      );
      if (!outcome.channel) {
        await this.passRows.finishPass(
          uow.manager,
          passId,
          {
            status: 'failed',
            channel: null,
            messageId: null,
            error: outcome.tried.map((t) => `${t.channel}: ${t.error}`).join('; ') || 'no channel',
          },
          now,
        );
        return 'failed';
      }
      await this.passRows.finishPass(
        uow.manager,
        passId,
        { status: 'sent', channel: outcome.channel, messageId: outcome.messageId, error: null },
        now,
      );
      await this.repo.update(uow.manager, tenant, visit.id, { pass_last_sent_at: now, updated_at: now });
      await this.visits.recordEvents(uow, tenant, visit.id, ['pass.sent']);
      return 'sent';
    });
  }
}
