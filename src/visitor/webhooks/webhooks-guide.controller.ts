import { Controller, Get, Header } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Config } from '../../config/config';
import { InjectConfig } from '../../config/config.module';
import { esc, page } from '../../docs/docs.render';
import { EventSamples } from '../events/event-samples';
import { EVENT_TYPES, EXPLICIT_ONLY_EVENT_TYPES, EventType, eventReadScope } from '../events/event-types';
import { toWebhookEndpointResponse } from './dto/webhook-endpoint.response';
import { DISABLE_AFTER_MS, JITTER, RETRY_WAITS_MS } from './delivery/retry-schedule';

const HTML = 'text/html; charset=utf-8';
/** The moment the catalogue's samples are made at (the page shows fixed times; its ids are fresh, like /test's). */
const SAMPLE_AT = new Date('2026-11-26T09:30:00.000Z');
const SAMPLE_TENANT = { organisationId: 'org_7Hq2LmX9vR4kTz8Wc3Np1B', livemode: false };

/** `300000` → `5 minutes`. */
function duration(ms: number): string {
  if (ms === 0) return 'at once';
  const units: [number, string][] = [
    [86_400_000, 'day'],
    [3_600_000, 'hour'],
    [60_000, 'minute'],
    [1_000, 'second'],
  ];
  const [size, name] = units.find(([u]) => ms % u === 0 && ms >= u)!;
  const n = ms / size;
  return `${n} ${name}${n === 1 ? '' : 's'}`;
}

/**
 * `/docs/webhooks`: the webhooks guide, its numbers read from the delivery code (retry-schedule.ts, the
 * configured timeout) and its event catalogue from the samples `POST /v1/webhook-endpoints/{id}/test` sends
 * (EventSamples), in the envelope a delivery carries.
 */
@ApiExcludeController()
@Controller('docs')
export class WebhooksGuideController {
  private html: string | null = null;

  constructor(
    private readonly samples: EventSamples,
    @InjectConfig() private readonly config: Config,
  ) {}

  @Get('webhooks')
  @Header('Content-Type', HTML)
  guide(): string {
    this.html ??= webhooksGuide(this.config.webhooks.timeoutMs, (type) => this.sampleEvent(type));
    return this.html;
  }

  /** The event a test send of `type` delivers (WebhookEndpointsService.test), at SAMPLE_AT. */
  sampleEvent(type: EventType): Record<string, unknown> {
    const object =
      type === 'webhook_endpoint.disabled'
        ? toWebhookEndpointResponse({
            id: 'whep_5Rt8KpW2nQ7xLc4Vb9Mz3A',
            organisationId: SAMPLE_TENANT.organisationId,
            livemode: false,
            url: 'https://example.com/gatehouse/webhooks',
            description: 'Front desk integration',
            enabledEvents: ['*'],
            status: 'disabled',
            disabledReason: 'failing',
            secretSealed: '',
            previousSecretSealed: null,
            previousSecretExpiresAt: null,
            failingSince: null,
            createdAt: new Date('2026-11-01T08:00:00.000Z'),
            updatedAt: SAMPLE_AT,
            deletedAt: null,
          })
        : this.samples.sample(type, SAMPLE_TENANT, SAMPLE_AT);
    return {
      id: 'evt_2Vn8Qx4Lk7Rt1Wm9Pc3Zs6',
      type,
      created_at: SAMPLE_AT.toISOString(),
      organisation_id: SAMPLE_TENANT.organisationId,
      livemode: false,
      data: { object },
    };
  }
}

function webhooksGuide(timeoutMs: number, sample: (type: EventType) => Record<string, unknown>): string {
  let elapsed = 0;
  const attempts = RETRY_WAITS_MS.map((wait, i) => {
    elapsed += wait;
    return `<tr><td>${i + 1}</td><td>${i === 0 ? 'at once' : `${duration(wait)} after attempt ${i}`}</td><td>${i === 0 ? '—' : `about ${duration(Math.round(elapsed / 60_000) * 60_000)}`}</td></tr>`;
  }).join('');
  const resources = [...new Set(EVENT_TYPES.map((t) => t.split('.')[0]))];
  const toc = EVENT_TYPES.map((t) => `<a href="#${t}"><code>${t}</code></a>`).join(' · ');
  const catalogue = resources
    .map((r) => {
      const entries = EVENT_TYPES.filter((t) => t.startsWith(`${r}.`))
        .map(
          (t) =>
            `<h3 id="${t}"><code>${t}</code></h3><p>Read scope: <code>${eventReadScope(t)}</code>${EXPLICIT_ONLY_EVENT_TYPES.includes(t) ? ' · delivered only to endpoints that list it' : ''}</p><pre><code class="language-json">${esc(JSON.stringify(sample(t), null, 2))}</code></pre>`,
        )
        .join('\n');
      return `<h2 id="resource-${r}">${esc(r)}</h2>\n${entries}`;
    })
    .join('\n');
  const explicit = EXPLICIT_ONLY_EVENT_TYPES.map((t) => `<code>${t}</code>`).join(', ');
  return page(
    'Webhooks',
    `<h1>Webhooks</h1>
<p>Gatehouse sends an event to each of your enabled webhook endpoints of the same mode that subscribes to its type: a <code>POST</code> with a JSON body, signed the <a href="https://www.standardwebhooks.com">Standard Webhooks</a> way. Create endpoints in the console (<a href="/console/webhooks">Webhooks</a>) or with <code>POST /v1/webhook-endpoints</code>; test-mode events go to test-mode endpoints only. Start with the <a href="/docs/quickstart">quickstart</a> for a receiver that verifies signatures.</p>
<h2 id="delivery">Delivery and retries</h2>
<p>An attempt succeeds when your endpoint answers <code>2xx</code> within ${duration(timeoutMs)}. Anything else fails it: another status, a redirect (never followed), a timeout, a connection or TLS error. Each endpoint gets its own delivery of each event, retried on its own; a failed attempt is retried on this schedule, each wait varying by up to ±${Math.round(JITTER * 100)} %:</p>
<table><thead><tr><th scope="col">Attempt</th><th scope="col">When</th><th scope="col">Since the event</th></tr></thead><tbody>${attempts}</tbody></table>
<p>After attempt ${RETRY_WAITS_MS.length} fails, the delivery is <code>failed</code>. You can replay any event of the last 30 days with <code>POST /v1/events/{evt_id}/redeliver</code> (same <code>webhook-id</code> and body), or retry a delivery from the console.</p>
<h2 id="disable">When an endpoint is disabled</h2>
<p>An endpoint whose every delivery attempt has failed for ${duration(DISABLE_AFTER_MS)} is disabled (<code>status: disabled</code>, <code>disabled_reason: failing</code>): its pending deliveries end, the organisation's Owners and Admins are e-mailed, and a <code>webhook_endpoint.disabled</code> event is recorded. One successful attempt in between resets the clock. Re-enable it with <code>PATCH /v1/webhook-endpoints/{whep_id}</code> and <code>{"status": "enabled"}</code> (or in the console), then redeliver what you missed. While your plan does not include webhooks, deliveries wait instead of being attempted, and those days do not count toward disabling.</p>
<h2 id="ordering">Ordering and duplicates</h2>
<ul>
<li><strong>Ordering is not guaranteed.</strong> Retries and parallel deliveries mean a <code>visit.checked_out</code> can arrive before its <code>visit.checked_in</code>. Order by the event's <code>created_at</code>, and fetch the object (for example <code>GET /v1/visits/{visit_id}</code>) when you need its current state.</li>
<li><strong>The same event may arrive more than once</strong> (a retry after a timeout, a redelivery). The <code>webhook-id</code> header is the event's <code>id</code>: keep the ids you handled for at least 30 days and ignore a repeat.</li>
<li>Answer <code>2xx</code> quickly and do the work afterwards; a slow answer is a failed attempt and a duplicate later.</li>
</ul>
<h2 id="subscribing">Subscribing</h2>
<p><code>enabled_events</code> lists event types, or <code>["*"]</code> for every type, including types added later, except ${explicit}: watchlist matches concern people on your watchlist, so they go only to endpoints that list <code>watchlist.matched</code> by name, for example <code>["*", "watchlist.matched"]</code> is refused (<code>*</code> stands alone) but <code>["visit.checked_in", "watchlist.matched"]</code> works. Naming a type needs its read scope (listed with each type below) on the credential that creates or changes the endpoint, as reading it at <code>GET /v1/events</code> does.</p>
<h2 id="signatures">Verifying signatures</h2>
<p>Each delivery has the headers <code>webhook-id</code>, <code>webhook-timestamp</code> and <code>webhook-signature</code>, signed with the endpoint's <code>whsec_…</code> secret (shown once, when the endpoint is created or its secret rotated; after a rotation both secrets sign for a while). Verify the raw body before parsing it, with the <code>standardwebhooks</code> package (<code>new Webhook(secret).verify(rawBody, headers)</code>); it refuses a timestamp older than 5 minutes.</p>
<h2 id="catalogue">Event catalogue</h2>
<p>Every event has the same envelope: <code>id</code> (also the <code>webhook-id</code> header), <code>type</code>, <code>created_at</code>, <code>organisation_id</code>, <code>livemode</code> and <code>data.object</code>, the object as its own endpoint returns it. The examples are the samples <code>POST /v1/webhook-endpoints/{whep_id}/test</code> sends (ids there are fresh and match no record).</p>
<p>${toc}</p>
${catalogue}`,
  );
}
