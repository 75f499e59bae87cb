import { SetMetadata } from '@nestjs/common';
import type { UnitOfWork } from '../../database/unit-of-work';
import type { Tenant } from './tenant';

export const VISITOR_DATA = 'gatehouse:visitor-data';

/** What one visitor's erasure has found so far, passed from holder to holder in `order`. */
export interface Erasure {
  visitorId: string;
  now: Date;
  /** Ids of the visitor's own records found by earlier holders (their visits), for rows that refer to those. */
  relatedIds: string[];
}

/**
 * A repository that stores visitor data. Visitor erasure (`VisitorErasure`, DELETE /v1/visitors/{id}) finds every
 * provider marked `@HoldsVisitorData(order)` and calls `eraseVisitor` on each, in `order`, in one transaction:
 * a new table that holds visitor data is covered by adding this method and the decorator to its repository.
 */
export interface VisitorDataHolder {
  eraseVisitor(uow: UnitOfWork, tenant: Tenant, erasure: Erasure): Promise<void>;
}

/** Marks a provider as a `VisitorDataHolder`; lower `order` runs first. */
export const HoldsVisitorData = (order: number): ClassDecorator => SetMetadata(VISITOR_DATA, order);
