import { Matches } from 'class-validator';

/** class-validator: a type-prefixed id (`site_…`; with several prefixes, any of them). */
export const IsPrefixedId = (...prefixes: string[]): PropertyDecorator =>
  Matches(new RegExp(`^(${prefixes.join('|')})_[0-9A-Za-z]+$`), {
    message: `must be a ${prefixes.map((p) => `${p}_…`).join(' or ')} id`,
  });
