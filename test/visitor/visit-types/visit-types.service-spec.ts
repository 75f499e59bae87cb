import { bootServiceContext, ServiceContext } from '../../harness';
import { VisitTypesService } from '../../../src/visitor/visit-types/visit-types.service';
import { FormsService } from '../../../src/visitor/forms/forms.service';
import { ApiError } from '../../../src/common/errors/api-error';

describe('visit types', () => {
  let t: ServiceContext;
  const tenant = { organisationId: 'org_types', livemode: false };
  beforeAll(async () => {
    t = await bootServiceContext({ env: { RUN_WORKER: 'false' } });
    await t.app.get(FormsService).publish(tenant, 'visit', {
      type: 'object',
      properties: {
        laptop: { type: 'boolean', 'x-svc-public': true },
        escort: { type: 'string', 'x-svc-type': 'person' },
      },
      'x-svc-order': ['laptop', 'escort'],
    });
  });
  afterAll(() => t.close());
  const svc = () => t.app.get(VisitTypesService);
  const errorOf = (p: Promise<unknown>) =>
    p.then(
      () => null,
      (e: ApiError) => ({ code: e.code, errors: e.errors }),
    );

  it('has the six built-in keys, on, closed for pre-registration', async () => {
    const types = await svc().list(tenant);
    expect(types.map((x) => x.key)).toEqual([
      'meeting',
      'interview',
      'delivery',
      'contractor',
      'event',
      'other',
    ]);
    expect(types.every((x) => x.enabled && x.built_in && !x.pre_registration && x.public_form === null)).toBe(
      true,
    );
    expect(Object.keys(types[0]).sort()).toEqual([
      'built_in',
      'enabled',
      'key',
      'name',
      'pre_registration',
      'public_form',
    ]);
  });

  it('adds organisation keys, opens types for pre-registration with only the visitor-facing questions', async () => {
    await svc().save(tenant, 'site_survey', { name: 'Site survey', pre_registration: true });
    const t1 = await svc().get(tenant, 'site_survey');
    expect(t1).toMatchObject({
      key: 'site_survey',
      name: 'Site survey',
      built_in: false,
      enabled: true,
      pre_registration: true,
    });
    expect(Object.keys(t1.public_form!.schema.properties as object)).toEqual(['laptop']);
    expect((await svc().list(tenant, { publishable: true })).map((x) => x.key)).toEqual(['site_survey']);
    expect(await errorOf(svc().get(tenant, 'meeting', { publishable: true }))).toMatchObject({
      code: 'not_found',
    });
  });

  it('refuses bad keys, unknown and turned-off types at body.type', async () => {
    expect(await errorOf(svc().save(tenant, 'Bad-Key', {}))).toMatchObject({
      code: 'validation_failed',
      errors: [{ location: 'path.key' }],
    });
    expect(await errorOf(svc().save(tenant, `a${'b'.repeat(40)}`, {}))).toMatchObject({
      code: 'validation_failed',
    });
    await svc().save(tenant, 'interview', { enabled: false });
    expect(await errorOf(svc().assertUsable(tenant, 'interview'))).toEqual({
      code: 'validation_failed',
      errors: [{ location: 'body.type', message: 'visit type "interview" is turned off' }],
    });
    expect(await errorOf(svc().assertUsable(tenant, 'spaceship'))).toMatchObject({
      errors: [{ location: 'body.type', message: 'unknown visit type "spaceship"' }],
    });
    expect(await errorOf(svc().assertUsable(tenant, 'meeting', { publishable: true }))).toMatchObject({
      errors: [{ location: 'body.type', message: 'visit type "meeting" is not open for pre-registration' }],
    });
    await expect(svc().assertUsable(tenant, 'site_survey', { publishable: true })).resolves.toBeUndefined();
  });
});
