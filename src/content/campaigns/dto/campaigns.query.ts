import { CategoryCountryQuery } from '../../common/category-country.query';

/** `GET /campaigns`: category and target country. */
export class CampaignsQuery extends CategoryCountryQuery {}
