import { Matches } from 'class-validator';

const pattern = (prefixes: string[]) => new RegExp(`^(${prefixes.join('|')})_[0-9A-Za-z]+$`);
const named = (prefixes: string[]) => prefixes.map((p) => `${p}_…`).join(' or ');

/** class-validator: a type-prefixed id (`IsPrefixedId('site')`: `site_…`; with several prefixes, any of them). */
export const IsPrefixedId = (...prefixes: string[]): PropertyDecorator =>
  Matches(pattern(prefixes), { message: `must be a ${named(prefixes)} id` });

/** class-validator: an array whose every item is a type-prefixed id (`EachIsPrefixedId('person')`). */
export const EachIsPrefixedId = (...prefixes: string[]): PropertyDecorator =>
  Matches(pattern(prefixes), { each: true, message: `each must be a ${named(prefixes)} id` });
