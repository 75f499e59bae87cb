import { newSigningSecret, signatureHeader } from '../visitor/webhooks/delivery/signature';
import { ApiTarget, follow } from './api';
import type { Output } from './output';

const FORWARD_TIMEOUT_MS = 10_000;

/**
 * `gatehouse-dev listen --forward-to URL`: the organisation's test-mode events as they happen (GET
 * /v1/events/stream), each POSTed to `forwardTo` signed with a secret made for this session, exactly as the
 * service's own deliveries are (Standard Webhooks: webhook-id, webhook-timestamp, webhook-signature). A lost
 * stream is reopened with `Last-Event-ID`, so no event is skipped. Runs until `signal` aborts.
 */
export async function listen(
  target: ApiTarget,
  forwardTo: string,
  types: string[] | null,
  out: Output,
  signal: AbortSignal,
): Promise<void> {
  const secret = newSigningSecret();
  await follow(target, '/v1/events/stream', {
    signal,
    onReady: () =>
      out.emit(
        { type: 'ready', secret, forward_to: forwardTo },
        `${out.paint('bold', 'Ready.')} Forwarding test-mode events to ${forwardTo}\n` +
          `Webhook signing secret for this session: ${out.paint('cyan', secret)}  (Ctrl-C to stop)`,
      ),
    onReopen: (why) => out.progress(`stream lost (${why}); reconnecting`),
    onMessage: async (m) => {
      if (types && !types.includes(m.event)) return;
      const r = await forward(forwardTo, secret, m.id, m.data);
      out.emit(
        {
          type: 'forwarded',
          event_id: m.id,
          event_type: m.event,
          status: r.status,
          duration_ms: r.ms,
          ...(r.error ? { error: r.error } : {}),
        },
        `${new Date().toISOString().slice(11, 19)}  ${m.event.padEnd(26)} ${m.id}  → ${out.status(r.status)} ${r.ms} ms${r.error ? `  ${r.error}` : ''}`,
      );
    },
  });
}

/** POSTs one event body to the local URL, signed with the session's secret. */
async function forward(
  url: string,
  secret: string,
  id: string,
  body: string,
): Promise<{ status: number | 'failed'; ms: number; error?: string }> {
  const ts = Math.floor(Date.now() / 1000);
  const started = performance.now();
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'Gatehouse-Webhooks/1 (gatehouse-dev listen)',
        'webhook-id': id,
        'webhook-timestamp': String(ts),
        'webhook-signature': signatureHeader([secret], id, ts, body),
      },
      body,
      signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
    });
    await res.arrayBuffer().catch(() => undefined);
    return { status: res.status, ms: Math.round(performance.now() - started) };
  } catch (e) {
    const cause = (e as { cause?: { code?: string } }).cause?.code;
    return {
      status: 'failed',
      ms: Math.round(performance.now() - started),
      error: cause ?? (e as Error).message,
    };
  }
}
