/**
 * The baseline of `npm run bench -- webhooks`, in its own process (as the worker is): a plain loop of signed POSTs
 * to the bench's receiver — the signature the worker puts on a delivery (signatureHeader), a keep-alive agent set
 * up as the worker's sender's (64 sockets, 64 kept free), BENCH_POSTS POSTs with BENCH_CONCURRENCY in flight (the
 * worker's WEBHOOK_CONCURRENCY) — and no outbox, queue or database. Sends `{ perSecond, cpuMs }` (its CPU while
 * sending) to its parent.
 */
import { Agent, request } from 'node:http';
import { newSigningSecret, signatureHeader } from '../src/visitor/webhooks/delivery/signature';

async function main(): Promise<void> {
  const port = Number(process.env.PORT);
  const total = Number(process.env.BENCH_POSTS);
  const concurrency = Number(process.env.BENCH_CONCURRENCY);
  const secret = newSigningSecret();
  const agent = new Agent({ keepAlive: true, maxSockets: 64, maxFreeSockets: 64, timeout: 30_000 });
  let next = 0;
  const one = () =>
    new Promise<void>((resolve, reject) => {
      const id = `evt_base${next}`;
      const body = JSON.stringify({
        id,
        type: 'visit.created',
        created_at: new Date().toISOString(),
        data: { object: { id: `visit_${next}`, i: next } },
      });
      const ts = Math.floor(Date.now() / 1000);
      const req = request(
        {
          host: '127.0.0.1',
          port,
          path: '/baseline',
          method: 'POST',
          agent,
          headers: {
            'content-type': 'application/json',
            'webhook-id': id,
            'webhook-timestamp': ts,
            'webhook-signature': signatureHeader([secret], id, ts, body),
          },
        },
        (res) => {
          res.resume();
          res.on('end', () => (res.statusCode === 204 ? resolve() : reject(new Error(`${res.statusCode}`))));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  const started = performance.now();
  const cpu0 = process.cpuUsage();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        next++;
        await one();
      }
    }),
  );
  const perSecond = Math.round(total / ((performance.now() - started) / 1000));
  const cpu = process.cpuUsage(cpu0);
  agent.destroy();
  process.send?.({ perSecond, cpuMs: (cpu.user + cpu.system) / 1000 }, () => process.exit(0));
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
