import { ApiTarget, follow } from './api';
import type { Output } from './output';

interface LoggedRequest {
  request_id: string;
  received_at: string;
  method: string;
  path: string;
  status: number;
  error_code: string | null;
  duration_ms: number;
}

/** `gatehouse-dev logs tail`: the organisation's test-mode requests as the request log writes them. */
export function tail(target: ApiTarget, out: Output, signal: AbortSignal): Promise<void> {
  return follow(target, '/v1/requests/stream', {
    signal,
    onReady: () =>
      out.emit(
        { type: 'ready' },
        `${out.paint('bold', 'Ready.')} Tailing test-mode requests (Ctrl-C to stop)`,
      ),
    onReopen: (why) => out.progress(`stream lost (${why}); reconnecting`),
    onMessage: (m) => {
      const r = JSON.parse(m.data) as LoggedRequest;
      out.emit(
        { type: 'request', ...r },
        `${r.received_at.slice(11, 19)}  ${out.status(r.status)} ${r.method.padEnd(6)} ${r.path}  ${r.duration_ms} ms  ${out.paint('dim', r.request_id)}${r.error_code ? `  ${out.paint('yellow', r.error_code)}` : ''}`,
      );
    },
  });
}
