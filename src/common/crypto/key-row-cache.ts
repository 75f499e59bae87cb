import { timingSafeEqual } from 'node:crypto';

/** A key row as read, when its read began, and the full key once one request has proven it against the hash. */
export interface CachedKeyRow<R> {
  at: number;
  row: R;
  proven: Buffer | null;
}

/**
 * The rows of secret keys stored as a hash with a lookup part (public API keys, /v1 API keys), kept in memory by
 * lookup part for `ttlMs`, so a keyed request need not read its key's row every time. Only keys that exist are
 * kept (an unknown key is read every time). Whoever learns of a change (a revocation) calls `forget`; a read that
 * began before that is used for its own request only, since it may have missed the change.
 */
export class KeyRowCache<R> {
  private readonly rows = new Map<string, CachedKeyRow<R>>();
  /** When the rows were last dropped: a read that started earlier is not kept. */
  private forgottenAt = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly max: number,
    /** The stored hash of a row's key, and the hash of a presented key. */
    private readonly hashes: { stored(row: R): Buffer; of(key: string): Buffer },
  ) {}

  /** The fresh cached row of `lookup`, or undefined when it must be read. */
  cached(lookup: string): CachedKeyRow<R> | undefined {
    const hit = this.rows.get(lookup);
    return hit && Date.now() - hit.at < this.ttlMs ? hit : undefined;
  }

  /** Reads the row of `lookup` with `read` and keeps it (null: no such key). */
  async read(lookup: string, read: () => Promise<R | null>): Promise<CachedKeyRow<R> | null> {
    const started = Date.now();
    const row = await read();
    if (!row) {
      this.rows.delete(lookup);
      return null;
    }
    const entry: CachedKeyRow<R> = { at: started, row, proven: null };
    if (started <= this.forgottenAt) return entry;
    if (this.rows.size >= this.max) this.rows.delete(this.rows.keys().next().value as string);
    this.rows.set(lookup, entry);
    return entry;
  }

  /** Whether `key` is the key of `entry`: a key already proven is compared in constant time, not hashed again. */
  proves(entry: CachedKeyRow<R>, key: string): boolean {
    const presented = Buffer.from(key);
    const { proven } = entry;
    if (proven && proven.length === presented.length && timingSafeEqual(proven, presented)) return true;
    const h = this.hashes.of(key);
    const stored = Buffer.from(this.hashes.stored(entry.row));
    if (stored.length !== h.length || !timingSafeEqual(stored, h)) return false;
    entry.proven = presented;
    return true;
  }

  /** Drops every row (a key changed somewhere), so the next request with a key reads its row. */
  forget(): void {
    this.forgottenAt = Date.now();
    this.rows.clear();
  }
}
