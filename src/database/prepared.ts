import { hash } from 'node:crypto';
import type { CustomTypesConfig, QueryConfig, QueryResult } from 'pg';
import type { DataSource, EntityManager } from 'typeorm';
import { routerOf } from './read-replica';

/** The pg pool or pooled client TypeORM's postgres driver holds: what a query config is sent to. */
interface PgQueryable {
  query<T>(q: QueryConfig<unknown[]>): Promise<Pick<QueryResult<T & object>, 'rows'>>;
}

/**
 * A named prepared statement: PostgreSQL parses and plans it once per connection instead of once per call. For
 * hot paths (credential lookup per request, webhook claims, visit writes and lists).
 *
 * This is the one place that reaches the pg driver under TypeORM (its pool, a transaction's client); repositories
 * call it instead of casting `ds.driver`. `on` is a DataSource (any pooled connection) or an EntityManager (its
 * transaction's connection when it runs one, else the pool), the READ_DATA_SOURCE included (the replica's pool,
 * or the primary's, see ReadReplica). `types` overrides the driver's type parsers for this query only.
 */
export async function preparedQuery<T>(
  on: DataSource | EntityManager,
  name: string,
  text: string,
  values: unknown[],
  types?: CustomTypesConfig,
): Promise<T[]> {
  const router = 'driver' in on ? routerOf(on) : undefined;
  if (router) return router.run((ds) => preparedQuery<T>(ds, name, text, values, types));
  const conn = await driverConnection(on);
  return (await conn.query<T>({ name, text, values, ...(types ? { types } : {}) })).rows;
}

async function driverConnection(on: DataSource | EntityManager): Promise<PgQueryable> {
  const runner = 'queryRunner' in on ? on.queryRunner : undefined;
  if (runner) return (runner as unknown as { connect(): Promise<PgQueryable> }).connect();
  const ds = 'driver' in on ? on : on.connection;
  return (ds.driver as unknown as { master: PgQueryable }).master;
}

const textNames = new Map<string, string>();

/**
 * `preparedQuery` named after its text (a hash), for statements assembled from parts (a list's filters): each
 * distinct text is parsed and planned once per connection, without a name to choose for each.
 */
export function preparedText<T>(
  on: DataSource | EntityManager,
  text: string,
  values: unknown[] = [],
): Promise<T[]> {
  let name = textNames.get(text);
  if (name === undefined) {
    name = `t_${hash('sha1', text, 'base64url')}`;
    if (textNames.size < 10_000) textNames.set(text, name);
  }
  return preparedQuery<T>(on, name, text, values);
}
