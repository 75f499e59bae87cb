import { ReferenceCache } from './reference-cache';

describe('ReferenceCache', () => {
  const tenant = { organisationId: 'org_a', livemode: false };
  const counting = () => {
    let n = 0;
    return { load: () => Promise.resolve(++n), loads: () => n };
  };

  it('reads once per version: the same version reuses the read, another version reads again', async () => {
    const cache = new ReferenceCache();
    const c = counting();
    expect(await cache.read(tenant, '7', 'k', c.load)).toBe(1);
    expect(await cache.read(tenant, '7', 'k', c.load)).toBe(1);
    expect(await cache.read(tenant, '8', 'k', c.load)).toBe(2);
    expect(await cache.read({ ...tenant, livemode: true }, '8', 'k', c.load)).toBe(3);
    expect(c.loads()).toBe(3);
  });

  it('without a version every call reads', async () => {
    const cache = new ReferenceCache();
    const c = counting();
    await cache.read(tenant, undefined, 'k', c.load);
    await cache.read(tenant, undefined, 'k', c.load);
    expect(c.loads()).toBe(2);
  });

  it('concurrent calls share one read; a failed read is not kept', async () => {
    const cache = new ReferenceCache();
    let n = 0;
    const failing = () => {
      n++;
      return Promise.reject(new Error('database unreachable'));
    };
    const both = [cache.read(tenant, '1', 'k', failing), cache.read(tenant, '1', 'k', failing)];
    await expect(Promise.all(both)).rejects.toThrow('database unreachable');
    expect(n).toBe(1);
    expect(await cache.read(tenant, '1', 'k', () => Promise.resolve('read again'))).toBe('read again');
  });
});
