import type { Fixture, World } from './tenancy-fixtures';
import { expectStatus, listAll } from './tenancy-fixtures';

/**
 * Tenancy fixtures of the front-desk resources (issue 23): files, deliveries, watchlist entries, roll calls. All
 * in organisation A's test mode, made through /v1 with A's test key.
 */

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let seq = 0;
const next = () => ++seq;
const newPhone = () => `+23324${String(8000000 + next()).padStart(7, '0')}`;

const fixture = (param: string, value: string, read: string): Fixture => ({
  params: { [param]: value },
  read,
  item: { field: 'id', value },
});

async function file(w: World): Promise<Fixture> {
  const f = await expectStatus(w, w.aTest, 'POST', '/v1/files', 201, {
    purpose: 'delivery_photo',
    content_type: 'image/png',
    size: 1024,
  });
  return fixture('file_id', f.id, `/v1/files/${f.id}`);
}

async function delivery(w: World): Promise<Fixture> {
  const d = await expectStatus(w, w.aTest, 'POST', '/v1/deliveries', 201, {
    site_id: w.aSite,
    recipient_id: w.aHost,
    carrier: 'DHL',
    description: `Parcel ${next()}`,
  });
  return fixture('delivery_id', d.id, `/v1/deliveries/${d.id}`);
}

async function watchlistEntry(w: World): Promise<Fixture> {
  const e = await expectStatus(w, w.aTest, 'POST', '/v1/watchlist-entries', 201, {
    name: `Zebedee Quartzfield ${next()}`,
    reason: 'Tenancy probe',
    severity: 'low',
  });
  return fixture('watch_id', e.id, `/v1/watchlist-entries/${e.id}`);
}

/** The visitor the latest roll call fixture has on site (its mark body names them). */
let onSite = '';

/**
 * A roll call at A's first test site with a newly checked-in visitor on it; the roll call active there before
 * (one per site) is closed first.
 */
async function rollcall(w: World): Promise<Fixture> {
  const v = await expectStatus(w, w.aTest, 'POST', '/v1/visits', 201, {
    site_id: w.aSite,
    host_id: w.aHost,
    type: 'meeting',
    visitor: { name: 'Abena Rollcall', phone: newPhone() },
  });
  await expectStatus(w, w.aTest, 'POST', `/v1/visits/${v.id}/check-in`, 200, {});
  for (const r of await listAll(w, w.aTest, `/rollcalls?site_id=${w.aSite}&status=active`))
    await expectStatus(w, w.aTest, 'POST', `/v1/rollcalls/${r.id}/close`, 200, {});
  const r = await expectStatus(w, w.aTest, 'POST', '/v1/rollcalls', 201, { site_id: w.aSite });
  onSite = (v.visitor as Json).id as string;
  return fixture('rollcall_id', r.id, `/v1/rollcalls/${r.id}`);
}

export const DESK_BUILDERS: Record<string, (w: World, variant?: string) => Promise<Fixture>> = {
  file_id: file,
  delivery_id: delivery,
  watch_id: watchlistEntry,
  rollcall_id: rollcall,
};

export const DESK_OPERATIONS: Record<string, { variant?: string; body?: (w: World) => unknown }> = {
  'POST /deliveries/{delivery_id}/collect': { body: (w) => ({ collected_by: w.aHost }) },
  'POST /deliveries/{delivery_id}/return': { body: () => ({ reason: 'Refused' }) },
  // The body is made before the fixture; its subject is read when it is sent, after the roll call was started.
  'POST /rollcalls/{rollcall_id}/marks': {
    body: () => ({
      get subject_id() {
        return onSite;
      },
      status: 'safe',
    }),
  },
};

export const DESK_LIST_FILTERS: Record<string, (w: World) => string[]> = {
  'GET /deliveries': (w) => [`?site_id=${w.aSite}`, `?recipient_id=${w.aHost}`, '?status=received'],
  'GET /rollcalls': (w) => [`?site_id=${w.aSite}`, '?status=active'],
};

export const DESK_CREATES: Record<
  string,
  { body: (w: World, org: 'a' | 'b') => Json; read: (id: string) => string; foreign?: string[] }
> = {
  'POST /files': {
    body: () => ({ purpose: 'document', content_type: 'application/pdf', size: 2048 }),
    read: (id) => `/v1/files/${id}`,
  },
  'POST /deliveries': {
    body: (w, org) => ({
      site_id: org === 'a' ? w.aSite : w.bSite,
      recipient_id: org === 'a' ? w.aHost : w.bHost,
      description: `Parcel for ${org}`,
    }),
    read: (id) => `/v1/deliveries/${id}`,
    foreign: ['body.recipient_id', 'body.site_id'],
  },
  'POST /watchlist-entries': {
    body: (_w, org) => ({ name: `Quillon Marsh ${org}`, reason: 'Tenancy probe', severity: 'medium' }),
    read: (id) => `/v1/watchlist-entries/${id}`,
  },
  // A's second site: the fixtures keep a roll call active at the first.
  'POST /rollcalls': {
    body: (w, org) => ({ site_id: org === 'a' ? w.aApprovalSite : w.bSite }),
    read: (id) => `/v1/rollcalls/${id}`,
    foreign: ['body.site_id'],
  },
};
