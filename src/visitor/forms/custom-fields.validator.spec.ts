import { CustomFieldsValidator, Form, publicForm, withoutProtectedAnswers } from './custom-fields.validator';

const form: Form = {
  version: 3,
  schema: {
    type: 'object',
    'x-svc-order': ['laptop', 'laptop_serial', 'nda_accepted', 'temperature', 'escort', 'id_number'],
    properties: {
      laptop: { type: 'boolean', 'x-svc-type': 'yes_no', 'x-svc-public': true },
      laptop_serial: {
        type: 'string',
        minLength: 3,
        'x-svc-show-if': { field: 'laptop', equals: true },
        'x-svc-public': true,
      },
      nda_accepted: { type: 'boolean', 'x-svc-consent-text': 'I accept the NDA', 'x-svc-public': true },
      temperature: { type: 'number', minimum: 30, maximum: 45, 'x-svc-unit': '°C' },
      escort: { type: 'string', pattern: '^person_[0-9A-Za-z]+$', 'x-svc-type': 'person' },
      id_number: { type: 'string', 'x-svc-sensitive': true },
    },
    required: ['nda_accepted'],
    allOf: [
      {
        if: { properties: { laptop: { const: true } }, required: ['laptop'] },
        then: { required: ['laptop_serial'] },
      },
    ],
  },
};

describe('custom fields', () => {
  const v = new CustomFieldsValidator();

  it('accepts valid answers', () => {
    expect(
      v.validate(
        form,
        { laptop: true, laptop_serial: 'SN-1', nda_accepted: true, temperature: 36.6, escort: 'person_abc' },
        'org1',
      ),
    ).toEqual([]);
  });

  it('locates each problem at body.custom_fields.<key>', () => {
    const errors = v.validate(form, { laptop: 'yes', temperature: 50, escort: 'bob', shoe_size: 44 }, 'org1');
    const locations = errors.map((e) => e.location).sort();
    expect(locations).toEqual(
      [
        'body.custom_fields.escort',
        'body.custom_fields.laptop',
        'body.custom_fields.nda_accepted',
        'body.custom_fields.shoe_size',
        'body.custom_fields.temperature',
      ].sort(),
    );
    expect(errors.find((e) => e.location === 'body.custom_fields.nda_accepted')!.message).toBe('is required');
    expect(errors.find((e) => e.location === 'body.custom_fields.shoe_size')!.message).toBe(
      'is not a field of this form',
    );
  });

  it('applies allOf/if/then requirements and x-svc-show-if', () => {
    expect(v.validate(form, { laptop: true, nda_accepted: true }, 'org1')).toEqual([
      { location: 'body.custom_fields.laptop_serial', message: 'is required' },
    ]);
    expect(v.validate(form, { laptop: false, laptop_serial: 'SN-1', nda_accepted: true }, 'org1')).toEqual([
      { location: 'body.custom_fields.laptop_serial', message: 'is asked only when laptop is true' },
    ]);
  });

  it('omits sensitive answers for integrations and events, and derives the public form', () => {
    expect(withoutProtectedAnswers(form, { nda_accepted: true, id_number: 'GHA-123' })).toEqual({
      nda_accepted: true,
    });
    const pub = publicForm(form);
    expect(Object.keys(pub.schema.properties)).toEqual(['laptop', 'laptop_serial', 'nda_accepted']);
    expect(pub.schema['x-svc-order']).toEqual(['laptop', 'laptop_serial', 'nda_accepted']);
    expect(pub.schema.required).toEqual(['nda_accepted']);
    expect(pub.schema.allOf).toEqual(form.schema.allOf);
  });

  it('keeps in the public form only the conditionals and questions a visitor can answer', () => {
    const mixed: Form = {
      version: 4,
      schema: {
        ...form.schema,
        properties: {
          ...form.schema.properties,
          car_plate: {
            type: 'string',
            'x-svc-public': true,
            'x-svc-show-if': { field: 'escort', equals: 'x' },
          },
        },
        allOf: [
          ...form.schema.allOf!,
          // mentions the staff-only temperature question: left out whole
          {
            if: { properties: { laptop: { const: true } }, required: ['laptop'] },
            then: { required: ['temperature'] },
          },
          { dependentRequired: { nda_accepted: ['id_number'] } },
        ],
      },
    };
    const pub = publicForm(mixed);
    expect(Object.keys(pub.schema.properties)).toEqual(['laptop', 'laptop_serial', 'nda_accepted']);
    expect(pub.schema.allOf).toEqual([form.schema.allOf![0]]);
    // the kept clause is enforced on pre-registration answers; the dropped ones are not
    expect(v.validate(pub, { laptop: true, nda_accepted: true }, 'org1:public')).toEqual([
      { location: 'body.custom_fields.laptop_serial', message: 'is required' },
    ]);
    expect(
      v.validate(pub, { laptop: true, laptop_serial: 'SN-1', nda_accepted: true }, 'org1:public'),
    ).toEqual([]);
    const topLevel = publicForm({
      version: 5,
      schema: {
        type: 'object',
        properties: {
          laptop: form.schema.properties.laptop,
          laptop_serial: form.schema.properties.laptop_serial,
        },
        if: { properties: { laptop: { const: true } }, required: ['laptop'] },
        then: { required: ['laptop_serial'] },
      },
    });
    expect(topLevel.schema).toMatchObject({ if: expect.any(Object), then: { required: ['laptop_serial'] } });
  });

  it('reports a broken schema to the admin saving it', () => {
    expect(v.schemaProblems({ type: 'object', properties: { a: { type: 'strin' } } })).toHaveLength(1);
    expect(v.schemaProblems(form.schema)).toEqual([]);
  });
});
