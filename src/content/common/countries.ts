import { Matches } from 'class-validator';

/** Country names of the codes the platform uses (ISO 3166-1 alpha-2). Unknown codes have no name (null). */
export const COUNTRY_NAMES: Record<string, string> = {
  GH: 'Ghana',
  NG: 'Nigeria',
  KE: 'Kenya',
  ZA: 'South Africa',
  UG: 'Uganda',
  TZ: 'Tanzania',
  RW: 'Rwanda',
  SN: 'Senegal',
  CI: "Côte d'Ivoire",
  TG: 'Togo',
  BF: 'Burkina Faso',
  CM: 'Cameroon',
  ET: 'Ethiopia',
  EG: 'Egypt',
  MA: 'Morocco',
  GB: 'United Kingdom',
  US: 'United States',
  CA: 'Canada',
  DE: 'Germany',
  FR: 'France',
  NL: 'Netherlands',
  IN: 'India',
  BR: 'Brazil',
  JM: 'Jamaica',
};

export const countryName = (code: string | null): string | null =>
  code ? (COUNTRY_NAMES[code] ?? null) : null;

/** A country code query parameter: two letters, any case. */
export const COUNTRY_CODE = /^[A-Za-z]{2}$/;
/** Validates a country code query parameter (COUNTRY_CODE). */
export const IsCountryCode = () =>
  Matches(COUNTRY_CODE, { message: 'must be a two-letter country code such as GH' });
