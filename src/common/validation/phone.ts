import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { registerDecorator, ValidationOptions } from 'class-validator';
import { ApiProperty } from '@nestjs/swagger';
import { applyDecorators } from '@nestjs/common';

/** True for a phone number written in E.164 (`+` and digits) that is valid for its country. */
export function isE164(value: unknown): value is string {
  if (typeof value !== 'string' || !/^\+[1-9]\d{6,14}$/.test(value)) return false;
  const parsed = parsePhoneNumberFromString(value);
  return parsed !== undefined && parsed.isValid() && parsed.number === value;
}

/** class-validator + OpenAPI: an E.164 phone number checked with libphonenumber. */
export function IsE164(
  options: ValidationOptions & { required?: boolean; nullable?: boolean } = {},
): PropertyDecorator {
  return applyDecorators(
    ApiProperty({
      type: String,
      required: options.required ?? true,
      nullable: options.nullable,
      example: '+233244123456',
      description: 'E.164 phone number',
    }),
    (target: object, propertyKey: string | symbol) =>
      registerDecorator({
        name: 'isE164',
        target: target.constructor,
        propertyName: String(propertyKey),
        options: {
          message: `${String(propertyKey)} must be a valid phone number in E.164 form, such as +233244123456`,
          ...options,
        },
        validator: { validate: (v: unknown) => isE164(v) },
      }),
  );
}
