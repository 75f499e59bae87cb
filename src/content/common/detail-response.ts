/**
 * A detail response built from its list item: `item` (made by the resource's list mapper) with the detail's own
 * fields `more` added after its own, in the order written. `more` is an object literal checked against the
 * detail class, so every added field is named and none is missing or extra; the list item's object is reused
 * rather than copied.
 */
export function detailResponse<Item extends object, Detail extends Item>(
  item: Item,
  more: Omit<Detail, keyof Item>,
): Detail {
  return Object.assign(item, more) as Detail;
}
