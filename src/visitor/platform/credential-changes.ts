import { Injectable, OnApplicationShutdown, OnModuleInit, Optional } from '@nestjs/common';
import type Redis from 'ioredis';
import type { Config } from '../../config/config';
import { InjectConfig } from '../../config/config.module';
import { RedisService } from '../../redis/redis.service';

/** The Redis pub/sub channel on which a change to what /v1 credentials carry is announced (under the key prefix). */
export const credentialChangeChannel = (prefix: string): string => `${prefix}:v1-credentials-changed`;

/**
 * Changes to what a /v1 credential carries (a key revoked, an organisation's plan, limits or IP allow-list, a custom
 * scope's grants): whoever makes one calls `announce` after its commit, and resolvers that keep credentials in
 * memory (`ApiKeysService`) drop them. Listeners in this process hear it at once; other instances over Redis, on a
 * connection of their own. Without Redis their caches' own expiry is the bound.
 */
@Injectable()
export class CredentialChanges implements OnModuleInit, OnApplicationShutdown {
  private readonly listeners: (() => void)[] = [];
  private subscriber: Redis | null = null;

  /** Absent where a service is built by hand (a bench): then only this process's listeners hear a change. */
  constructor(
    @Optional() private readonly redis?: RedisService,
    @Optional() @InjectConfig() private readonly config?: Config,
  ) {}

  /** `listener` runs on every change, announced here or by another instance. */
  listen(listener: () => void): void {
    this.listeners.push(listener);
  }

  /** Tells this process's listeners, then every other instance (a failed publish is the caches' expiry's to cover). */
  async announce(): Promise<void> {
    this.notify();
    if (this.redis?.isReady() && this.config)
      await this.redis.client
        .publish(credentialChangeChannel(this.config.redisKeyPrefix), '1')
        .catch(() => 0);
  }

  onModuleInit(): void {
    if (!this.redis || !this.config) return;
    // A subscribed connection can do nothing else; it resubscribes after reconnecting.
    const sub = this.redis.client.duplicate({ enableOfflineQueue: true });
    sub.on('error', () => undefined); // the shared connection reports Redis being down
    sub.on('message', () => this.notify());
    sub.subscribe(credentialChangeChannel(this.config.redisKeyPrefix)).catch(() => undefined);
    this.subscriber = sub;
  }

  onApplicationShutdown(): void {
    this.subscriber?.disconnect();
  }

  private notify(): void {
    for (const l of this.listeners) l();
  }
}
