import {
  escapeField,
  LogBatch,
  logLine,
  parseLine,
  RequestLogEntry,
  unescapeField,
} from './request-log.entry';

const entry = (over: Partial<RequestLogEntry>): RequestLogEntry => ({
  requestId: 'req_00000000000000000000AA',
  errorRef: null,
  receivedAt: new Date('2026-11-23T10:00:00.000Z'),
  surface: 'public',
  method: 'GET',
  path: '/public/v1/stats',
  status: 200,
  errorCode: null,
  durationMs: 0.25,
  clientIp: '127.0.0.1',
  organisationId: null,
  credentialId: null,
  livemode: null,
  ...over,
});

describe('request log line format', () => {
  it('gives back every field exactly, whatever characters it holds', () => {
    const awkward = 'a\\b\tc\nd\re \\N \\. \\t \u00e9\u{1F600}';
    for (const v of [awkward, '\\N', '\\', '', 'plain']) expect(unescapeField(escapeField(v))).toBe(v);
    expect(unescapeField(escapeField(null))).toBeNull();
    const e = entry({ path: `/x?q=${awkward}`, credentialId: awkward, livemode: false, errorRef: 'ERR-A' });
    const line = logLine(e);
    expect(line.endsWith('\n')).toBe(true);
    expect(line.slice(0, -1)).not.toMatch(/[\n\r]/);
    expect(parseLine(line.slice(0, -1))).toEqual(e);
  });

  it('a batch knows its least and greatest id, first and last time and its error refs, in any line order', () => {
    const entries = [
      entry({ requestId: 'req_b', receivedAt: new Date('2026-11-23T10:00:02.000Z') }),
      entry({ requestId: 'req_a', receivedAt: new Date('2026-11-23T10:00:03.000Z'), errorRef: 'ERR-1' }),
      entry({ requestId: 'req_c', receivedAt: new Date('2026-11-23T10:00:01.000Z'), errorRef: 'ERR-2' }),
    ];
    const batch = new LogBatch();
    for (const e of entries) batch.add(e);
    expect(batch).toMatchObject({
      count: 3,
      firstId: 'req_a',
      lastId: 'req_c',
      errorRefs: ['ERR-1', 'ERR-2'],
    });
    expect(batch.firstAt.toISOString()).toBe('2026-11-23T10:00:01.000Z');
    expect(batch.lastAt.toISOString()).toBe('2026-11-23T10:00:03.000Z');
    expect(batch.lines().toString('utf8')).toBe(entries.map(logLine).join(''));
  });

  it('a batch grows past its first buffer and keeps characters beyond ASCII whole', () => {
    const entries = Array.from({ length: 400 }, (_, i) =>
      entry({
        requestId: `req_${String(i).padStart(4, '0')}`,
        path: `/public/v1/blog/caf\u00e9-\u{1F600}-${i}`,
      }),
    );
    const batch = new LogBatch();
    for (const e of entries) batch.add(e);
    const text = batch.lines().toString('utf8');
    expect(Buffer.byteLength(text)).toBeGreaterThan(16 * 1024);
    expect(text.split('\n').slice(0, -1).map(parseLine)).toEqual(entries);
  });

  it('two requests in the same millisecond carry the same time, a later one its own', () => {
    const at = new Date('2026-11-23T10:00:00.123Z');
    const [a, b, c] = [at, new Date(at.getTime()), new Date(at.getTime() + 1)].map((receivedAt) =>
      parseLine(logLine(entry({ receivedAt })).slice(0, -1)),
    );
    expect(a.receivedAt.toISOString()).toBe('2026-11-23T10:00:00.123Z');
    expect(b.receivedAt.toISOString()).toBe('2026-11-23T10:00:00.123Z');
    expect(c.receivedAt.toISOString()).toBe('2026-11-23T10:00:00.124Z');
  });
});
