import { call } from '../../support/platform-fixtures';
import { useDesk, PNG, putToLink } from '../../support/desk-app';

describe('deliveries over HTTP', () => {
  const d = useDesk();

  const record = (body: Record<string, unknown> = {}) =>
    call(d.t.app, 'POST', '/v1/deliveries', {
      key: d.key,
      body: { site_id: d.site, recipient_id: d.host, carrier: 'DHL', tracking_number: 'JD0146', ...body },
    });
  const eventsOf = async (id: string) =>
    (
      await d.pg.query(
        `SELECT type, body FROM visitor.event WHERE body::jsonb #>> '{data,object,id}' = $1 ORDER BY created_at, id`,
        [id],
      )
    ).rows.map((r) => ({ type: r.type as string, object: JSON.parse(r.body).data.object }));
  const uploaded = async (purpose: string) => {
    const f = (
      await call(d.t.app, 'POST', '/v1/files', {
        key: d.key,
        body: { purpose, content_type: 'image/png', size: PNG.length },
      })
    ).json();
    expect((await putToLink(d, f.upload, PNG)).statusCode).toBe(204);
    return f.id as string;
  };

  it('records a delivery with a photo, notifies the recipient (test outbox) and emits delivery.received', async () => {
    const photo = await uploaded('delivery_photo');
    const res = await record({ photo_file_id: photo, description: 'One parcel' });
    expect(res.statusCode).toBe(201);
    d.contract.expectValid(res, 'POST', '/v1/deliveries');
    const del = res.json();
    expect(del).toMatchObject({
      status: 'received',
      photo_file_id: photo,
      recipient_id: d.host,
      collected_at: null,
    });
    expect(del.notified_at).not.toBeNull();
    const outbox = await d.pg.query(
      `SELECT channel, recipient, provider, body FROM visitor.message WHERE related_id = $1`,
      [del.id],
    );
    expect(outbox.rows).toEqual([
      expect.objectContaining({
        channel: 'email',
        provider: 'test_outbox',
        recipient: expect.stringMatching(/@host\.test$/),
      }),
    ]);
    expect(outbox.rows[0].body).toMatch(/DHL, tracking JD0146/);
    expect((await eventsOf(del.id)).map((e) => e.type)).toEqual(['delivery.received']);
    const got = await call(d.t.app, 'GET', `/v1/deliveries/${del.id}`, { key: d.key });
    d.contract.expectValid(got, 'GET', '/v1/deliveries/{delivery_id}');
    expect(got.json()).toEqual(del);
  });

  it('refuses unknown references, all at once, and a photo that is not an uploaded delivery photo', async () => {
    const res = await record({
      site_id: 'site_nope',
      recipient_id: 'person_nope',
      received_by: 'person_nope2',
    });
    expect(res.statusCode).toBe(422);
    expect(
      res
        .json()
        .errors.map((e: { location: string }) => e.location)
        .sort(),
    ).toEqual(['body.received_by', 'body.recipient_id', 'body.site_id']);
    const pending = (
      await call(d.t.app, 'POST', '/v1/files', {
        key: d.key,
        body: { purpose: 'delivery_photo', content_type: 'image/png', size: 10 },
      })
    ).json();
    const signature = await uploaded('signature');
    for (const id of [pending.id, signature]) {
      const r = await record({ photo_file_id: id });
      expect(r.statusCode).toBe(422);
      expect(r.json().errors[0].location).toBe('body.photo_file_id');
    }
  });

  it('collects once: collected, then invalid_state for collect and return; events in order', async () => {
    const del = (await record()).json();
    const signature = await uploaded('signature');
    const c = await call(d.t.app, 'POST', `/v1/deliveries/${del.id}/collect`, {
      key: d.key,
      body: { signature_file_id: signature },
    });
    expect(c.statusCode).toBe(200);
    d.contract.expectValid(c, 'POST', '/v1/deliveries/{delivery_id}/collect');
    expect(c.json()).toMatchObject({
      status: 'collected',
      collected_by: d.host,
      signature_file_id: signature,
    });
    for (const action of ['collect', 'return']) {
      const again = await call(d.t.app, 'POST', `/v1/deliveries/${del.id}/${action}`, {
        key: d.key,
        body: {},
      });
      expect(again.statusCode).toBe(409);
      expect(again.json().code).toBe('invalid_state');
    }
    expect((await eventsOf(del.id)).map((e) => e.type)).toEqual(['delivery.received', 'delivery.collected']);
  });

  it('returns to the sender: returned, then invalid_state for collect', async () => {
    const del = (await record()).json();
    const r = await call(d.t.app, 'POST', `/v1/deliveries/${del.id}/return`, {
      key: d.key,
      body: { reason: 'Recipient left' },
    });
    expect(r.statusCode).toBe(200);
    expect(r.json()).toMatchObject({ status: 'returned', return_reason: 'Recipient left' });
    const c = await call(d.t.app, 'POST', `/v1/deliveries/${del.id}/collect`, { key: d.key, body: {} });
    expect(c.json().code).toBe('invalid_state');
    expect((await eventsOf(del.id)).map((e) => e.type)).toEqual(['delivery.received', 'delivery.returned']);
  });

  it('of two simultaneous collects exactly one wins', async () => {
    for (let round = 0; round < 3; round++) {
      const del = (await record()).json();
      const results = await Promise.all(
        [0, 1].map(() => call(d.t.app, 'POST', `/v1/deliveries/${del.id}/collect`, { key: d.key, body: {} })),
      );
      expect(results.map((r) => r.statusCode).sort()).toEqual([200, 409]);
      expect(results.find((r) => r.statusCode === 409)!.json().code).toBe('invalid_state');
      expect((await eventsOf(del.id)).filter((e) => e.type === 'delivery.collected')).toHaveLength(1);
    }
  });

  it('lists with filters: site, recipient, status, received range', async () => {
    const other = (
      await call(d.t.app, 'POST', '/v1/people', { key: d.key, body: { name: 'Yaw', email: 'yaw@host.test' } })
    ).json().id;
    const a = (await record({ received_at: '2026-01-10T09:00:00Z' })).json();
    const b = (
      await record({ site_id: d.site2, recipient_id: other, received_at: '2026-02-10T09:00:00Z' })
    ).json();
    await call(d.t.app, 'POST', `/v1/deliveries/${b.id}/collect`, { key: d.key, body: {} });
    const ids = async (q: string) => {
      const res = await call(d.t.app, 'GET', `/v1/deliveries${q}`, { key: d.key });
      expect(res.statusCode).toBe(200);
      d.contract.expectValid(res, 'GET', '/v1/deliveries');
      return res.json().data.map((x: { id: string }) => x.id);
    };
    expect(await ids('')).toEqual([a.id, b.id]);
    expect(await ids(`?site_id=${d.site2}`)).toEqual([b.id]);
    expect(await ids(`?recipient_id=${d.host}`)).toEqual([a.id]);
    expect(await ids('?status=collected')).toEqual([b.id]);
    expect(await ids('?received_from=2026-02-01T00:00:00Z')).toEqual([b.id]);
    expect(await ids('?received_to=2026-02-01T00:00:00Z')).toEqual([a.id]);
    expect(await ids('?limit=1')).toEqual([a.id]);
    const bad = await call(
      d.t.app,
      'GET',
      '/v1/deliveries?received_from=2026-03-01T00:00:00Z&received_to=2026-02-01T00:00:00Z',
      { key: d.key },
    );
    expect(bad.statusCode).toBe(422);
  });
});
