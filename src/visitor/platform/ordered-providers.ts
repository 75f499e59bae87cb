import type { DiscoveryService, Reflector } from '@nestjs/core';

/**
 * The provider instances whose class carries `key` metadata (a number), sorted by it: the holders visitor erasure
 * and the sandbox reset call in order.
 */
export function orderedProviders<T>(discovery: DiscoveryService, reflector: Reflector, key: string): T[] {
  const found = new Map<T, number>();
  for (const w of discovery.getProviders()) {
    if (!w.metatype || !w.instance) continue;
    const order = reflector.get<number | undefined>(key, w.metatype);
    if (order !== undefined) found.set(w.instance as T, order);
  }
  return [...found].sort((a, b) => a[1] - b[1]).map(([holder]) => holder);
}
