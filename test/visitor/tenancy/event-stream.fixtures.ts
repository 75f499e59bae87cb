import type { Readable } from 'node:stream';
import { until } from '../../support/until';
import { expectStatus, type World } from './tenancy-fixtures';

/** An open /v1 stream through the app (the answer read as a stream: its body never ends) and what came so far. */
async function open(
  w: World,
  key: string,
  url: string,
): Promise<{ status: number; text: () => string; close: () => void }> {
  const res = await w.app.inject({
    method: 'GET',
    url,
    headers: { authorization: `Bearer ${key}` },
    payloadAsStream: true,
  });
  const body: Readable = res.stream();
  let text = '';
  body.on('data', (c: Buffer) => (text += c.toString()));
  body.on('error', () => undefined);
  return { status: res.statusCode, text: () => text, close: () => body.destroy() };
}

/**
 * The test-mode streams (src/visitor/event-stream): a stream opened with B's test key gets nothing of what A's test
 * key does, while A's own stream shows it; A's live key is refused (the streams are test mode only).
 */
async function streamKeepsToItsTenant(w: World, url: string, act: () => Promise<string>): Promise<string[]> {
  const problems: string[] = [];
  const live = await open(w, w.aLive, url);
  if (live.status !== 403) problems.push(`A's live key answered ${live.status}, not 403`);
  live.close();
  const a = await open(w, w.aTest, url);
  const b = await open(w, w.bTest, url);
  try {
    if (a.status !== 200 || b.status !== 200) return [...problems, `answered ${a.status} and ${b.status}`];
    const marker = await act();
    await until(async () => a.text().includes(marker), 10_000).catch(() =>
      problems.push(`A's own test stream never showed ${marker}`),
    );
    // B's stream was open all along: what A's stream got has been sent to every stream by now.
    if (b.text().includes(marker) || b.text().includes(w.a.id))
      problems.push(`B's test stream shows A's ${marker}`);
  } finally {
    a.close();
    b.close();
  }
  return problems;
}

export const STREAM_SINGLETONS: Record<string, { reason: string; check: (w: World) => Promise<string[]> }> = {
  'GET /events/stream': {
    reason: "the credential's own organisation's test-mode events as they are recorded",
    check: (w) =>
      streamKeepsToItsTenant(w, '/v1/events/stream', async () => {
        const person = await expectStatus(w, w.aTest, 'POST', '/v1/people', 201, {
          name: 'Stream Probe',
          email: `stream.probe.${Date.now()}@example.test`,
        });
        return person.id as string;
      }),
  },
  'GET /requests/stream': {
    reason: "the credential's own organisation's test-mode requests as they are logged",
    check: (w) =>
      streamKeepsToItsTenant(w, '/v1/requests/stream', async () => {
        const marker = `stream_probe_${Date.now()}`;
        await w.app.inject({
          method: 'GET',
          url: `/v1/visits/visit_${marker}`,
          headers: { authorization: `Bearer ${w.aTest}` },
        });
        return marker;
      }),
  },
};
