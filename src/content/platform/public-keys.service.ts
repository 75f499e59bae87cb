import { createHash, timingSafeEqual } from 'node:crypto';
import { Injectable, Logger, OnApplicationShutdown, OnModuleInit, Optional } from '@nestjs/common';
import type Redis from 'ioredis';
import { Clock } from '../../common/clock';
import { newId, randomBase62 } from '../../common/ids';
import type { Config } from '../../config/config';
import { InjectConfig } from '../../config/config.module';
import { RedisService } from '../../redis/redis.service';
import { revocationChannel } from './key-revocations';
import { PublicKeyRow, PublicKeysRepository } from './public-keys.repository';

/** `ghpub_` + 12 lookup characters + 32 secret characters (base62, about 262 bits). */
export const PUBLIC_KEY_PREFIX = 'ghpub_';
const KEY = /^ghpub_([0-9A-Za-z]{12})[0-9A-Za-z]{32}$/;
const hash = (key: string) => createHash('sha256').update(key).digest();
/**
 * How long an instance trusts a key row it has read: every keyed request would otherwise cost one more query.
 * A revocation is announced over Redis (key-revocations.ts), on which every instance drops its cached rows at
 * once; this is the bound when that announcement cannot travel (Redis down).
 */
export const KEY_CACHE_MS = 5_000;
const KEY_CACHE_MAX = 10_000;
type KeyRow = { id: string; key_hash: Buffer; revoked_at: Date | null };
/** A key row read from the database, and the full key value once one request has proven it. */
type CachedKey = { at: number; row: KeyRow; proven: Buffer | null };

export interface PublicKeyView {
  id: string;
  name: string;
  last4: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export const toPublicKeyView = (r: PublicKeyRow): PublicKeyView => ({
  id: r.id,
  name: r.name,
  last4: r.last4,
  created_at: new Date(r.created_at).toISOString(),
  last_used_at: r.last_used_at ? new Date(r.last_used_at).toISOString() : null,
  revoked_at: r.revoked_at ? new Date(r.revoked_at).toISOString() : null,
});

/**
 * Public API keys, issued by operators to partners: shown once, stored as a SHA-256 hash with a lookup part,
 * revocation immediate. Each request with a key is counted per key and day (attribution), in memory and
 * written every few seconds in one statement.
 */
@Injectable()
export class PublicKeysService implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('PublicKeys');
  private pending = new Map<string, { keyId: string; day: string; requests: number; lastUsedAt: Date }>();
  private timer: NodeJS.Timeout | null = null;
  /** Key rows by lookup part (only keys that exist; an unknown key is looked up every time). */
  private readonly rows = new Map<string, CachedKey>();
  /** The UTC day requests are counted under, worked out once a day rather than per request. */
  private dayStart = NaN;
  private day = '';
  /** When cached rows were last dropped for a revocation: a row read that started earlier is not cached. */
  private invalidatedAt = 0;
  private subscriber: Redis | null = null;

  /** `redis` and `config` are absent where the service is built by hand (a bench); revoking announces nothing itself:
   * whoever revokes calls announceRevocation (the CLI). */
  constructor(
    private readonly repo: PublicKeysRepository,
    private readonly clock: Clock,
    @Optional() private readonly redis?: RedisService,
    @Optional() @InjectConfig() private readonly config?: Config,
  ) {}

  onModuleInit(): void {
    this.timer = setInterval(() => void this.flush(), 5_000);
    this.timer.unref();
    if (this.redis && this.config) {
      // A connection of its own (a subscribed connection can do nothing else); it resubscribes after reconnecting.
      const sub = this.redis.client.duplicate({ enableOfflineQueue: true });
      sub.on('error', () => undefined); // the shared connection reports Redis being down
      sub.on('message', () => this.forgetRows());
      sub.subscribe(revocationChannel(this.config.redisKeyPrefix)).catch(() => undefined);
      this.subscriber = sub;
    }
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.subscriber?.disconnect();
    await this.flush();
  }

  /** Drops every cached key row (a key was revoked somewhere), so the next request with a key reads its row. */
  private forgetRows(): void {
    this.invalidatedAt = Date.now();
    this.rows.clear();
  }

  async create(name: string): Promise<PublicKeyView & { key: string }> {
    const lookup = randomBase62(12);
    const key = `${PUBLIC_KEY_PREFIX}${lookup}${randomBase62(32)}`;
    const row = {
      id: newId('pubkey'),
      name,
      lookup,
      key_hash: hash(key),
      last4: key.slice(-4),
      created_at: this.clock.now(),
    };
    await this.repo.insert(row);
    return { ...toPublicKeyView({ ...row, last_used_at: null, revoked_at: null }), key };
  }

  async list(): Promise<PublicKeyView[]> {
    return (await this.repo.list()).map(toPublicKeyView);
  }

  async revoke(id: string): Promise<PublicKeyView | null> {
    const row = await this.repo.revoke(id, this.clock.now());
    this.forgetRows();
    if (row && this.config && this.redis?.isReady())
      await this.redis.client.publish(revocationChannel(this.config.redisKeyPrefix), id).catch(() => 0);
    return row ? toPublicKeyView(row) : null;
  }

  /** The key's id, 'revoked', or null when the value is not a key of ours. */
  async resolve(value: string): Promise<string | 'revoked' | null> {
    const known = this.resolveCached(value);
    if (known !== undefined) return known;
    const entry = await this.byLookup(KEY.exec(value)![1]);
    return entry ? this.check(entry, value) : null;
  }

  /**
   * `resolve` answered from memory: undefined when the key's row is not cached (or no longer fresh), so the
   * database must be asked.
   */
  resolveCached(value: string): string | 'revoked' | null | undefined {
    const m = KEY.exec(value);
    if (!m) return null;
    const hit = this.rows.get(m[1]);
    if (!hit || Date.now() - hit.at >= KEY_CACHE_MS) return undefined;
    return this.check(hit, value);
  }

  private check(entry: CachedKey, value: string): string | 'revoked' | null {
    const presented = Buffer.from(value);
    // A value already proven against the stored hash is compared directly (in constant time), not hashed again.
    if (!(
      entry.proven &&
      entry.proven.length === presented.length &&
      timingSafeEqual(entry.proven, presented)
    )) {
      const h = hash(value);
      const stored = Buffer.from(entry.row.key_hash);
      if (stored.length !== h.length || !timingSafeEqual(stored, h)) return null;
      entry.proven = presented;
    }
    return entry.row.revoked_at ? 'revoked' : entry.row.id;
  }

  private async byLookup(lookup: string): Promise<CachedKey | null> {
    const started = Date.now();
    const row = (await this.repo.byLookup(lookup)) as KeyRow | null;
    if (!row) {
      this.rows.delete(lookup);
      return null;
    }
    const entry: CachedKey = { at: started, row, proven: null };
    // A read that began before a revocation was announced may have missed it: used for this request only.
    if (started <= this.invalidatedAt) return entry;
    if (this.rows.size >= KEY_CACHE_MAX) this.rows.delete(this.rows.keys().next().value as string);
    this.rows.set(lookup, entry);
    return entry;
  }

  /** Counts one request of the key (written by the next flush). */
  countUse(keyId: string): void {
    const now = this.clock.now();
    const dayStart = now.getTime() - (now.getTime() % 86_400_000);
    if (dayStart !== this.dayStart) {
      this.dayStart = dayStart;
      this.day = now.toISOString().slice(0, 10);
    }
    const day = this.day;
    const k = `${keyId}|${day}`;
    const entry = this.pending.get(k);
    if (entry) {
      entry.requests += 1;
      entry.lastUsedAt = now;
    } else this.pending.set(k, { keyId, day, requests: 1, lastUsedAt: now });
  }

  async flush(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = [...this.pending.values()];
    this.pending = new Map();
    try {
      await this.repo.recordUse(batch);
    } catch (e) {
      // Put the counts back for the next flush rather than lose them.
      for (const u of batch) {
        const k = `${u.keyId}|${u.day}`;
        const entry = this.pending.get(k);
        if (entry) entry.requests += u.requests;
        else this.pending.set(k, u);
      }
      this.logger.warn(`could not record key usage: ${(e as Error).message}`);
    }
  }
}
