import { Injectable, Logger } from '@nestjs/common';
import { ApiError, FieldError } from '../../common/errors/api-error';
import { Clock } from '../../common/clock';
import { newId } from '../../common/ids';
import { IS_RESPONSE, Transactions } from '../../database/unit-of-work';
import { EventsService } from '../events/events.service';
import { FilesService } from '../files/files.service';
import { MessagesService } from '../messages/messages.service';
import { OrganisationsService } from '../organisations/organisations.service';
import { PeopleService } from '../people/people.service';
import { CursorCodecProvider } from '../platform/cursor-codec.provider';
import type { Page } from '../platform/pagination';
import type { Tenant } from '../platform/tenant';
import { DeliveriesRepository, DeliveryRow } from './deliveries.repository';
import type {
  CollectDeliveryBody,
  CreateDeliveryBody,
  DeliveriesQuery,
  ReturnDeliveryBody,
} from './dto/delivery.request';
import { DeliveryResponse, toDeliveryResponse } from './dto/delivery.response';
import { queryRange } from '../../common/validation/timestamp';

/**
 * Deliveries: recorded at a site for a person (who is told through the message providers after commit),
 * then collected once or returned to the sender. `received` is the only status that can move; two concurrent
 * collects are decided by one conditional UPDATE, so exactly one wins and the other is `invalid_state`.
 */
@Injectable()
export class DeliveriesService {
  private readonly logger = new Logger('Deliveries');

  constructor(
    private readonly repo: DeliveriesRepository,
    private readonly orgs: OrganisationsService,
    private readonly people: PeopleService,
    private readonly files: FilesService,
    private readonly messages: MessagesService,
    private readonly events: EventsService,
    private readonly tx: Transactions,
    private readonly clock: Clock,
    private readonly cursors: CursorCodecProvider,
  ) {}

  async create(tenant: Tenant, input: CreateDeliveryBody): Promise<DeliveryResponse> {
    const [sites, peopleErrors] = await Promise.all([
      this.orgs.existingSiteIds(tenant, [input.site_id]),
      this.people.unknownPeople(tenant, [
        { location: 'body.recipient_id', id: input.recipient_id },
        { location: 'body.received_by', id: input.received_by },
      ]),
    ]);
    const errors: FieldError[] = [...peopleErrors];
    if (!sites.has(input.site_id))
      errors.push({
        location: 'body.site_id',
        message: `no site ${input.site_id} in this organisation and mode`,
      });
    if (errors.length) throw ApiError.validation(errors);
    if (input.photo_file_id)
      await this.files.requireUsable(tenant, input.photo_file_id, ['delivery_photo'], 'body.photo_file_id');
    const now = this.clock.now();
    const row: DeliveryRow = {
      id: newId('delivery'),
      organisation_id: tenant.organisationId,
      livemode: tenant.livemode,
      site_id: input.site_id,
      recipient_id: input.recipient_id,
      status: 'received',
      carrier: input.carrier ?? null,
      tracking_number: input.tracking_number ?? null,
      description: input.description ?? '',
      photo_file_id: input.photo_file_id ?? null,
      received_at: input.received_at ? new Date(input.received_at) : now,
      received_by: input.received_by ?? null,
      collected_at: null,
      collected_by: null,
      collected_by_name: null,
      signature_file_id: null,
      collection_photo_file_id: null,
      returned_at: null,
      return_reason: null,
      notified_at: null,
      notified_channel: null,
      created_at: now,
      updated_at: now,
    };
    // the answer as committed (not yet notified) is stored with the delivery: a retry after a crash replays it
    await this.tx.run(async (uow) => {
      await this.repo.insert(uow.manager, row);
      const view = toDeliveryResponse(row);
      await this.events.record(uow, tenant, 'delivery.received', view);
      return view;
    }, IS_RESPONSE);
    return toDeliveryResponse(await this.notify(tenant, row));
  }

  /**
   * Tells the recipient (e-mail, then SMS), after the delivery is committed; test mode writes to the test outbox.
   * A failed notice is logged and leaves `notified_at` null; it does not undo the delivery.
   */
  private async notify(tenant: Tenant, row: DeliveryRow): Promise<DeliveryRow> {
    try {
      const person = await this.people.find(tenant, row.recipient_id);
      if (!person) return row;
      const from = [row.carrier, row.tracking_number && `tracking ${row.tracking_number}`].filter(Boolean);
      const sent = await this.messages.send(tenant, ['email', 'sms'], {
        to: { email: person.email, phone: person.phone },
        subject: 'A delivery is waiting for you',
        body: `Hello ${person.name}, a delivery${from.length ? ` (${from.join(', ')})` : ''} is waiting for you at reception.${row.description ? ` ${row.description}` : ''}`,
        relatedId: row.id,
      });
      if (!sent.channel) return row;
      const at = this.clock.now();
      await this.repo.setNotified(tenant, row.id, sent.channel, at);
      return { ...row, notified_at: at, notified_channel: sent.channel };
    } catch (e) {
      this.logger.error(`delivery ${row.id}: recipient not notified: ${(e as Error).message}`);
      return row;
    }
  }

  async get(tenant: Tenant, id: string): Promise<DeliveryResponse> {
    const row = await this.repo.find(tenant, id);
    if (!row) throw ApiError.notFound(`Delivery ${id}`);
    return toDeliveryResponse(row);
  }

  page(tenant: Tenant, q: DeliveriesQuery): Promise<Page<DeliveryResponse>> {
    const received = queryRange(q, 'received_from', 'received_to');
    const filter = {
      siteId: q.site_id,
      recipientId: q.recipient_id,
      status: q.status,
      receivedFrom: received.from,
      receivedTo: received.to,
    };
    return this.cursors.codec.createdPage(
      'deliveries',
      tenant,
      q,
      (limit, after) => this.repo.list(tenant, filter, limit + 1, after),
      toDeliveryResponse,
    );
  }

  /** received → collected (once; a second collect, also a concurrent one, is `invalid_state`). */
  async collect(tenant: Tenant, id: string, input: CollectDeliveryBody): Promise<DeliveryResponse> {
    // another tenant's delivery is not_found before anything in the body is judged
    if (!(await this.repo.find(tenant, id))) throw ApiError.notFound(`Delivery ${id}`);
    const errors = await this.people.unknownPeople(tenant, [
      { location: 'body.collected_by', id: input.collected_by },
    ]);
    if (errors.length) throw ApiError.validation(errors);
    if (input.signature_file_id)
      await this.files.requireUsable(
        tenant,
        input.signature_file_id,
        ['signature'],
        'body.signature_file_id',
      );
    if (input.photo_file_id)
      await this.files.requireUsable(tenant, input.photo_file_id, ['delivery_photo'], 'body.photo_file_id');
    return this.leaveReceived(tenant, id, 'collected', (row, now) => ({
      status: 'collected',
      collected_at: now,
      collected_by: input.collected_by ?? (input.collected_by_name ? null : row.recipient_id),
      collected_by_name: input.collected_by_name ?? null,
      signature_file_id: input.signature_file_id ?? null,
      collection_photo_file_id: input.photo_file_id ?? null,
      updated_at: now,
    }));
  }

  /** received → returned (to the sender); `invalid_state` once collected or returned. */
  async returnToSender(tenant: Tenant, id: string, input: ReturnDeliveryBody): Promise<DeliveryResponse> {
    return this.leaveReceived(tenant, id, 'returned', (_row, now) => ({
      status: 'returned',
      returned_at: now,
      return_reason: input.reason ?? null,
      updated_at: now,
    }));
  }

  private async leaveReceived(
    tenant: Tenant,
    id: string,
    to: 'collected' | 'returned',
    changes: (row: DeliveryRow, now: Date) => Partial<DeliveryRow> & { status: typeof to },
  ): Promise<DeliveryResponse> {
    const current = await this.repo.find(tenant, id);
    if (!current) throw ApiError.notFound(`Delivery ${id}`);
    return this.tx.run(async (uow) => {
      const changed = await this.repo.leaveReceived(
        uow.manager,
        tenant,
        id,
        changes(current, this.clock.now()),
      );
      if (!changed) {
        const now = await this.repo.find(tenant, id, uow.manager);
        throw new ApiError(
          'invalid_state',
          `Delivery ${id} is ${now?.status ?? 'gone'}; only a received delivery can be ${to}.`,
        );
      }
      const view = toDeliveryResponse(changed);
      await this.events.record(uow, tenant, `delivery.${to}`, view);
      return view;
    }, IS_RESPONSE);
  }
}
