import type { Form } from '../../visitor/forms/custom-fields.validator';
import type { Role } from '../../visitor/platform/scopes';

/**
 * Who sees protected form answers (questions marked `x-svc-sensitive` or `x-svc-masked`) in the console: Owners and
 * Admins, who define the forms. Members and support staff get the visit as /v1 gives it to API keys and connected
 * apps (the same omission, `withoutProtectedAnswers`), on the page and on `GET /console/visits/{id}` alike.
 */
export const seesProtectedAnswers = (role: Role): boolean => role === 'owner' || role === 'admin';

/** A question's label: its `title`, else its key. */
export const labelOf = (form: Form, key: string): string => {
  const def = form.schema.properties[key];
  return typeof def?.title === 'string' && def.title ? def.title : key;
};

/** A stored answer as text. */
export const answerText = (v: unknown): string =>
  v === true ? 'Yes' : v === false ? 'No' : typeof v === 'string' ? v : JSON.stringify(v);

/**
 * The answers of a visit as the page lists them, in the form's order (answers to questions the form no longer has
 * last), and the protected questions whose answers the caller's role does not see.
 */
export function answersOf(
  form: Form,
  shown: Record<string, unknown>,
  seesProtected: boolean,
): { answers: { key: string; label: string; value: string; mark: string | null }[]; hidden: string[] } {
  const props = form.schema.properties;
  const order = form.schema['x-svc-order'] ?? Object.keys(props);
  const keys = [...order.filter((k) => k in shown), ...Object.keys(shown).filter((k) => !order.includes(k))];
  const mark = (k: string) =>
    props[k]?.['x-svc-sensitive'] ? 'sensitive' : props[k]?.['x-svc-masked'] ? 'masked' : null;
  return {
    answers: keys.map((k) => ({
      key: k,
      label: labelOf(form, k),
      value: answerText(shown[k]),
      mark: mark(k),
    })),
    hidden: seesProtected
      ? []
      : Object.keys(props)
          .filter((k) => mark(k) !== null)
          .map((k) => labelOf(form, k)),
  };
}
