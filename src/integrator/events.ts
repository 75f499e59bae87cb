import { ApiTarget, api } from './api';
import type { Output } from './output';

interface EventSummary {
  id: string;
  type: string;
  created_at: string;
  data: { object: { id?: string } };
}

/** `gatehouse-dev events list`: the newest events (GET /v1/events), one per line. */
export async function listEvents(
  target: ApiTarget,
  opts: { type?: string; limit?: string },
  out: Output,
): Promise<void> {
  const q = new URLSearchParams();
  if (opts.type) q.set('type', opts.type);
  if (opts.limit) q.set('limit', opts.limit);
  const page = await api<{ data: EventSummary[]; has_more: boolean }>(target, 'GET', `/v1/events?${q}`);
  for (const e of page.data)
    out.emit(
      {
        type: 'event',
        id: e.id,
        event_type: e.type,
        created_at: e.created_at,
        object_id: e.data.object.id ?? null,
      },
      `${e.created_at}  ${out.paint('cyan', e.type.padEnd(26))} ${e.id}  ${e.data.object.id ?? ''}`,
    );
  if (!page.data.length) out.progress('no events in the last 30 days');
}

/**
 * `gatehouse-dev events resend <evt_id>`: replays a stored event to the organisation's webhook endpoints
 * (POST /v1/events/{id}/redeliver), or to one with `--endpoint`.
 */
export async function resendEvent(
  target: ApiTarget,
  id: string,
  endpoint: string | undefined,
  out: Output,
): Promise<void> {
  const r = await api<{ event_id: string; deliveries: { id: string; endpoint_id: string }[] }>(
    target,
    'POST',
    `/v1/events/${encodeURIComponent(id)}/redeliver`,
    endpoint ? { endpoint_id: endpoint } : {},
  );
  out.emit(
    { type: 'resent', event_id: r.event_id, deliveries: r.deliveries },
    r.deliveries.length
      ? `${out.paint('green', 'Resent')} ${r.event_id} to ${r.deliveries.map((d) => d.endpoint_id).join(', ')}`
      : `${r.event_id}: no webhook endpoint is subscribed to it`,
  );
}
