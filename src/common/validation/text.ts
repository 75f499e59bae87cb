import { applyDecorators } from '@nestjs/common';
import { isEmail, IsString, Matches, MaxLength, ValidateBy, ValidationOptions } from 'class-validator';

/** Something visible: a character other than white space and invisible format characters (zero-width space, …). */
const VISIBLE = /[^\s\p{Cf}]/u;

/**
 * class-validator: a name (of a person, visitor, attendee, watchlist entry, shift, …): a string of at most `max`
 * characters holding something visible, so `"   "` is refused (`must not be blank`) wherever a name is taken.
 */
export const IsName = (max = 200, options: ValidationOptions = {}) =>
  applyDecorators(
    IsString(options),
    Matches(VISIBLE, {
      ...options,
      message: options.each ? 'each must not be blank' : 'must not be blank',
    }),
    MaxLength(max, options),
  );

/** How the served contract describes an e-mail field (`format: email`). */
export const EMAIL_DESCRIPTION =
  'ASCII e-mail address (internationalised addresses are refused; write the domain as xn--…)';

/** Printable ASCII only: what JSON Schema's `format: email` (RFC 5321 mailbox, no SMTPUTF8) allows. */
const ASCII = /^[\x21-\x7e]+$/;

/** An e-mail address as `format: email` means it: ASCII (`xn--` domains are ASCII), `local@domain`. */
export function isEmailAddress(v: unknown): v is string {
  return typeof v === 'string' && ASCII.test(v) && isEmail(v, { allow_utf8_local_part: false });
}

/**
 * class-validator: an e-mail address that fits the `format: email` the contract publishes. Internationalised
 * addresses (non-ASCII local part or domain, `idn-email`) are refused; a domain in its ASCII form (`xn--…`) is
 * accepted.
 */
export const IsEmailAddress = (options: ValidationOptions = {}) =>
  ValidateBy(
    { name: 'isEmailAddress', validator: { validate: (v) => isEmailAddress(v) } },
    {
      message: 'must be an e-mail address (ASCII: internationalised addresses are not accepted)',
      ...options,
    },
  );
