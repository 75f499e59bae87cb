import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import type { components } from './generated/v1';

/** A webhook delivery's body: the event envelope (`id`, `type`, `created_at`, `organisation_id`, `livemode`, `data`). */
export type WebhookEvent = components['schemas']['EventResponse'];
export type WebhookEventType = WebhookEvent['type'];

/** Request headers as a server framework gives them: Fetch `Headers`, or Node's `IncomingHttpHeaders`. */
export type HeadersLike = Headers | Record<string, string | string[] | undefined>;

function plainHeaders(headers: HeadersLike): Record<string, string> {
  const out: Record<string, string> = {};
  if (typeof (headers as Headers).forEach === 'function' && typeof (headers as Headers).get === 'function') {
    (headers as Headers).forEach((value, name) => (out[name.toLowerCase()] = value));
    return out;
  }
  for (const [name, value] of Object.entries(headers as Record<string, string | string[] | undefined>))
    if (value !== undefined) out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  return out;
}

export { WebhookVerificationError };

export const webhooks = {
  /**
   * Checks a delivery's `webhook-id`, `webhook-timestamp` (within 5 minutes) and `webhook-signature` against the
   * endpoint's secret (`whsec_…`; during a rotation either secret matches) per the Standard Webhooks scheme, and
   * returns the parsed event. Pass the body exactly as received (the raw string or bytes, not re-serialised JSON).
   * Throws WebhookVerificationError when anything does not match. De-duplicate on `event.id` (= `webhook-id`).
   */
  verify(body: string | Uint8Array, headers: HeadersLike, secret: string): WebhookEvent {
    const payload = typeof body === 'string' ? body : new TextDecoder().decode(body);
    return new Webhook(secret).verify(payload, plainHeaders(headers)) as WebhookEvent;
  },
};
