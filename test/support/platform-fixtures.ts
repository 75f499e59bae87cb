import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { randomUUID } from 'node:crypto';
import { OrganisationsService } from '../../src/visitor/organisations/organisations.service';
import { ApiKeysService } from '../../src/visitor/api-keys/api-keys.service';
import { SCOPES } from '../../src/visitor/platform/scopes';
import { Contract } from './openapi-contract';

const OPERATOR = { type: 'operator' as const, id: 'test' };
let n = 0;

export interface TestOrg {
  id: string;
  sites: { id: string; livemode: boolean }[];
  /** Creates a key of this organisation and returns the full key. */
  key(opts?: { mode?: 'live' | 'test'; kind?: 'secret' | 'publishable'; scopes?: string[] }): Promise<string>;
}

/** An organisation with one site (both modes), through the real services. */
export async function createOrg(app: NestFastifyApplication, plan = 'pro', sites = 1): Promise<TestOrg> {
  n += 1;
  const created = await app.get(OrganisationsService).create(
    {
      name: `Test Org ${n} ${randomUUID().slice(0, 8)}`,
      plan,
      country: 'GH',
      time_zone: 'Africa/Accra',
      sites: Array.from({ length: sites }, (_, i) => ({
        name: `Site ${i + 1}`,
        time_zone: 'Africa/Accra',
        gates: ['Main'],
      })),
    },
    OPERATOR,
  );
  const id = created.organisation.id;
  return {
    id,
    sites: created.sites.map((s) => ({ id: s.id, livemode: s.livemode })),
    key: async (o = {}) =>
      (
        await app.get(ApiKeysService).create(
          id,
          {
            name: 'test key',
            kind: o.kind ?? 'secret',
            mode: o.mode ?? 'test',
            scopes: o.scopes ?? (o.kind === 'publishable' ? ['forms:read', 'visits:write'] : [...SCOPES]),
          },
          OPERATOR,
        )
      ).key,
  };
}

export interface CallOpts {
  key?: string;
  body?: unknown;
  headers?: Record<string, string>;
  idempotencyKey?: string | null;
  remoteAddress?: string;
}

/** The served /v1 document of each app, fetched once. */
const contracts = new WeakMap<NestFastifyApplication, Promise<Contract>>();

/**
 * One /v1 request through the whole app; POSTs get a fresh Idempotency-Key unless one is given (or null). Every
 * answer to a documented operation is checked against the app's served document (status, headers, body), so a
 * test cannot pass on a response the contract does not allow.
 */
export async function call(
  app: NestFastifyApplication,
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  url: string,
  o: CallOpts = {},
) {
  const res = await send(app, method, url, o);
  if (!url.startsWith('/v1/')) return res;
  let contract = contracts.get(app);
  if (!contract) contracts.set(app, (contract = Contract.fetch(app, '/v1/openapi.json')));
  const c = await contract;
  if (c.documents(method, url)) c.expectValid(res, method, url);
  return res;
}

function send(
  app: NestFastifyApplication,
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  url: string,
  o: CallOpts = {},
) {
  const headers: Record<string, string> = { ...(o.headers ?? {}) };
  if (o.key) headers.authorization = `Bearer ${o.key}`;
  if (method === 'POST' && o.idempotencyKey !== null)
    headers['idempotency-key'] = o.idempotencyKey ?? randomUUID();
  if (o.body !== undefined) headers['content-type'] = 'application/json';
  return app.inject({
    method,
    url,
    headers,
    payload: o.body === undefined ? undefined : JSON.stringify(o.body),
    remoteAddress: o.remoteAddress,
  });
}
