import type { INestApplication } from '@nestjs/common';
import { SecretBox } from '../../src/common/crypto/secret-box';
import { newId } from '../../src/common/ids';
import { newSigningSecret } from '../../src/visitor/webhooks/delivery/signature';
import { WebhooksRepository } from '../../src/visitor/webhooks/webhooks.repository';
import type { Config } from '../../src/config/config';

/** Inserts a webhook endpoint through the real repository; returns its id and signing secret. */
export async function createEndpoint(
  app: INestApplication,
  config: Config,
  tenant: { organisationId: string; livemode: boolean },
  url: string,
  enabledEvents: string[],
  status: 'enabled' | 'disabled' = 'enabled',
): Promise<{ id: string; secret: string }> {
  const secret = newSigningSecret();
  const now = new Date();
  const id = newId('whep');
  await app.get(WebhooksRepository).insertEndpoint({
    id,
    ...tenant,
    url,
    description: '',
    enabledEvents,
    status,
    disabledReason: null,
    secretSealed: new SecretBox(config.secrets.encryptionKey).seal(secret),
    previousSecretSealed: null,
    previousSecretExpiresAt: null,
    failingSince: null,
    createdAt: now,
    updatedAt: now,
    deletedAt: null,
  });
  return { id, secret };
}

/**
 * A stand-in for an event's object in tests of recording and delivery, not of the object's shape:
 * EventsService.record otherwise takes only the object its type declares (EventObjects).
 */
export const standIn = (object: unknown): never => object as never;

/**
 * Resolves once the wall clock has passed `event`'s created_at. Events listed newest first are ordered by
 * `(created_at, id)`, so two recorded in separate transactions within one millisecond come in the order of their
 * random ids. A test that records events one after the other and expects that order waits for this between them,
 * as separate requests are in practice.
 */
export async function pastCreation(event: { created_at: string }): Promise<void> {
  while (Date.now() <= Date.parse(event.created_at)) await new Promise((r) => setTimeout(r, 1));
}
