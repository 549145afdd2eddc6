/** A posted form, with every value of a field that was sent more than once (checkboxes). */
export type PostedForm = Record<string, string | File | (string | File)[]>;

/** The field's one text value; empty when it is missing, a file, or sent more than once. */
export function textOf(form: PostedForm, name: string): string {
  const value = form[name];
  return typeof value === "string" ? value : "";
}

/** The text of each of the form's fields, by name. */
export function textsByField<Field extends string>(
  form: PostedForm,
  fields: readonly Field[],
): Record<Field, string> {
  return Object.fromEntries(fields.map((field) => [field, textOf(form, field)])) as Record<
    Field,
    string
  >;
}

/** Every text value of the field (the boxes ticked of a group of checkboxes). */
export function textsOf(form: PostedForm, name: string): string[] {
  const value = form[name];
  const values = Array.isArray(value) ? value : value === undefined ? [] : [value];
  return values.filter((item): item is string => typeof item === "string");
}

/**
 * What a refused form says, per field: one or more sentences each. The
 * first field in error (in the form's order) takes the focus.
 */
export type FieldErrors<Field extends string> = Partial<Record<Field, string[]>>;

/** The first of the form's fields, in its order, that has an error. */
export function firstInError<Field extends string>(
  order: readonly Field[],
  errors: FieldErrors<Field>,
): Field | undefined {
  return order.find((field) => (errors[field]?.length ?? 0) > 0);
}
