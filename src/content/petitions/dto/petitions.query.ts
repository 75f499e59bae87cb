import { CategoryCountryQuery } from '../../common/category-country.query';

/** `GET /petitions`: category and target country. */
export class PetitionsQuery extends CategoryCountryQuery {}
