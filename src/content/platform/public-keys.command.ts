import { CliCommand, requiredFlag, UsageError } from '../../cli/cli-command';
import { PublicKeysRepository } from './public-keys.repository';
import { announceRevocation } from './key-revocations';
import { KEY_CACHE_MS, PublicKeysService } from './public-keys.service';

/** `npx gatehouse public-keys create --name <partner> | list | revoke <pubkey_id> | usage <pubkey_id>` */
export const publicKeysCommand: CliCommand = {
  name: 'public-keys',
  usage: 'public-keys create --name <partner> | list | revoke <pubkey_id> | usage <pubkey_id>',
  summary: 'Issue, list and revoke public content API keys (x-api-key); the key is printed once',
  async run(args, ctx) {
    const [sub, id] = args;
    const keys = await ctx.get(PublicKeysService);
    switch (sub) {
      case 'create': {
        const name = requiredFlag(args, '--name').trim();
        if (!name || name.length > 200) throw new UsageError('--name must be 1 to 200 characters');
        const created = await keys.create(name);
        ctx.log('the key is shown only now; it is stored as a hash');
        return created;
      }
      case 'list':
        return { data: await keys.list() };
      case 'revoke': {
        if (!id) throw new UsageError('revoke needs the key id (pubkey_…)');
        const revoked = await keys.revoke(id);
        if (!revoked) throw new UsageError(`no public key ${id}`);
        const announced = await announceRevocation(ctx.config.redisUrl, ctx.config.redisKeyPrefix, id);
        ctx.log(
          announced
            ? 'revocation announced to every running instance'
            : `Redis unreachable: running instances refuse the key within ${KEY_CACHE_MS / 1000} s`,
        );
        return revoked;
      }
      case 'usage': {
        if (!id) throw new UsageError('usage needs the key id (pubkey_…)');
        return {
          key_id: id,
          days: (await (await ctx.get(PublicKeysRepository)).usage(id)).map((u) => ({
            day: u.day,
            requests: Number(u.requests),
          })),
        };
      }
      default:
        throw new UsageError(this.usage);
    }
  },
};
