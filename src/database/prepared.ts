import { hash } from 'node:crypto';
import type { CustomTypesConfig, QueryConfig, QueryResult } from 'pg';
import type { DataSource, EntityManager, QueryRunner } from 'typeorm';
import { writeTogether } from './pipeline';
import { routerOf } from './read-replica';

/** The pg pool or pooled client TypeORM's postgres driver holds: what a query config is sent to. */
export interface PgQueryable {
  query<T>(q: QueryConfig<unknown[]> | string): Promise<Pick<QueryResult<T & object>, 'rows' | 'command'>>;
}

/**
 * A named prepared statement: PostgreSQL parses and plans it once per connection instead of once per call. For
 * hot paths (credential lookup per request, webhook claims, visit writes and lists).
 *
 * This is the one place that reaches the pg driver under TypeORM (its pool, a transaction's client); repositories
 * call it instead of casting `ds.driver`. `on` is a DataSource (any pooled connection) or an EntityManager (its
 * transaction's connection when it runs one, else the pool), the READ_DATA_SOURCE included (the replica's pool,
 * or the primary's, see ReadReplica). `types` overrides the driver's type parsers for this query only.
 *
 * The statement is written to the connection when this is called (when the connection is already at hand: the pool,
 * or a transaction's client), not after a turn of the event loop, so statements of one transaction called one after
 * the other without awaiting in between go out in that order in one pipelined write (the pool's clients run in pg's
 * pipeline mode: `createDataSource`).
 */
export function preparedQuery<T>(
  on: DataSource | EntityManager,
  name: string,
  text: string,
  values: unknown[],
  types?: CustomTypesConfig,
): Promise<T[]> {
  const router = 'driver' in on ? routerOf(on) : undefined;
  if (router) return router.run((ds) => preparedQuery<T>(ds, name, text, values, types));
  const q = { name, text, values, ...(types ? { types } : {}) };
  const conn = connectionOf(on);
  if ('query' in conn) {
    writeTogether(conn);
    return conn.query<T>(q).then((r) => r.rows);
  }
  return conn.then((c) => c.query<T>(q).then((r) => r.rows));
}

/**
 * What `on` sends statements to: the pool, or the client of its query runner — at hand when the runner holds one
 * (a transaction's), else a promise of the one it connects.
 */
function connectionOf(on: DataSource | EntityManager): PgQueryable | Promise<PgQueryable> {
  const runner = 'queryRunner' in on ? on.queryRunner : undefined;
  if (runner) {
    const r = runner as unknown as { databaseConnection?: PgQueryable; connect(): Promise<PgQueryable> };
    return r.databaseConnection ?? r.connect();
  }
  const ds = 'driver' in on ? on : on.connection;
  return (ds.driver as unknown as { master: PgQueryable }).master;
}

/**
 * A query runner holding one pooled client for a transaction that `Transactions` drives itself (BEGIN written with
 * the first statement, COMMIT with the last): the client, and TypeORM's bookkeeping set as its own
 * `startTransaction` would (a nested `manager.transaction` then takes a savepoint instead of a second BEGIN).
 */
export async function transactionClient(
  ds: DataSource,
): Promise<{ runner: QueryRunner; client: PgQueryable }> {
  const runner = ds.createQueryRunner();
  const client = (await runner.connect()) as PgQueryable;
  const state = runner as unknown as { isTransactionActive: boolean; transactionDepth: number };
  state.isTransactionActive = true;
  state.transactionDepth = 1;
  return { runner, client };
}

/** Marks `runner` as out of its transaction again (before it is released to the pool). */
export function endTransaction(runner: QueryRunner): void {
  const state = runner as unknown as { isTransactionActive: boolean; transactionDepth: number };
  state.isTransactionActive = false;
  state.transactionDepth = 0;
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
  types?: CustomTypesConfig,
): Promise<T[]> {
  let name = textNames.get(text);
  if (name === undefined) {
    name = `t_${hash('sha1', text, 'base64url')}`;
    if (textNames.size < 10_000) textNames.set(text, name);
  }
  return preparedQuery<T>(on, name, text, values, types);
}
