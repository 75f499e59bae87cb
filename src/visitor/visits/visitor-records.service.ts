import { Injectable } from '@nestjs/common';
import { ApiError } from '../../common/errors/api-error';
import type { UnitOfWork } from '../../database/unit-of-work';
import type { Tenant } from '../platform/tenant';
import { toVisitorResponse, VisitorResponse } from './dto/visit.response';
import type { VisitCaller } from './visits.service';
import { VisitorRow, VisitorsRepository } from './visitors.repository';

export type { VisitorRow };

/** Visitor records (matched by phone across visits): GET /v1/visitors/{id}, and the lookup erasure starts from. */
@Injectable()
export class VisitorRecordsService {
  constructor(private readonly repo: VisitorsRepository) {}

  /** The visitor record (not erased) with this id, or with this phone number, read in the caller's transaction. */
  find(uow: UnitOfWork, tenant: Tenant, ref: string, by: 'id' | 'phone' = 'id'): Promise<VisitorRow | null> {
    return this.repo.findVisitor(tenant, ref, uow.manager, by);
  }

  async get(caller: VisitCaller, id: string): Promise<VisitorResponse> {
    const row = await this.repo.findVisitor(caller.tenant, id);
    if (!row) throw ApiError.notFound(`Visitor ${id}`);
    if (
      caller.hiddenBefore &&
      row.last_visit_at < caller.hiddenBefore &&
      !(await this.repo.visitorHasActiveVisit(caller.tenant, id))
    )
      throw new ApiError(
        'plan_required',
        "This visitor's visits are older than the organisation's plan shows; upgrade the plan to see them.",
      );
    return toVisitorResponse(row);
  }
}
