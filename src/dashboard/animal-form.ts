import { EntityTagSchema } from "../api/entity-tags.ts";
import { PET_STATUSES } from "../db/schema.ts";
import { type NewPet, NewPetSchema, type Pet } from "../pets/pets.schemas.ts";
import { type FieldErrors, type PostedForm, textOf } from "./form-values.ts";

/** The animal form's fields, in the order the page shows them; their names are the API's. */
export const ANIMAL_FIELDS = ["name", "categoryId", "status"] as const;
export type AnimalField = (typeof ANIMAL_FIELDS)[number];

/** The form as posted (or drawn from the animal), every field as its text, to show again. */
export type AnimalFormValues = Record<AnimalField, string>;

/** What each field's error says, so a person can put it right. */
const FIELD_ERRORS: Record<AnimalField, string> = {
  name: "Enter a name of 1 to 100 characters, not only spaces and without control characters.",
  categoryId: "Choose a category from the list.",
  status: `Choose one of ${PET_STATUSES.join(", ")}.`,
};

/** The form's fields drawn from the animal, for its edit form. */
export function animalValuesOf(pet: Pet): AnimalFormValues {
  return { name: pet.name, categoryId: String(pet.categoryId), status: pet.status };
}

/** An empty form for a new animal: available unless the person says otherwise. */
export const NEW_ANIMAL_VALUES: AnimalFormValues = {
  name: "",
  categoryId: "",
  status: "available",
};

/** A whole number as the form sent it, or the text itself for the schema to refuse. */
const numberOrText = (text: string) => (/^\d{1,16}$/.test(text) ? Number(text) : text);

/**
 * What the animal form asks for, checked by the API's own rules (the body
 * of createPet), with a sentence per field in error. Every field is sent,
 * so the same body serves an edit as a merge patch that names every field.
 */
export function parseAnimalForm(
  form: PostedForm,
):
  | { ok: true; pet: NewPet; values: AnimalFormValues }
  | { ok: false; errors: FieldErrors<AnimalField>; values: AnimalFormValues } {
  const values: AnimalFormValues = {
    name: textOf(form, "name"),
    categoryId: textOf(form, "categoryId"),
    status: textOf(form, "status"),
  };
  const parsed = NewPetSchema.safeParse({
    name: values.name,
    categoryId: numberOrText(values.categoryId),
    // Left out, as the API allows: a new animal is then available, an edit keeps its status.
    status: values.status === "" ? undefined : values.status,
  });
  if (parsed.success) return { ok: true, pet: parsed.data, values };
  const errors: FieldErrors<AnimalField> = {};
  for (const issue of parsed.error.issues) {
    const field = ANIMAL_FIELDS.find((name) => name === issue.path[0]);
    if (field) errors[field] = [FIELD_ERRORS[field]];
  }
  return { ok: false, errors, values };
}

/** The version an edit form was drawn from, as its `etag` field carries it; undefined when it is not one. */
export function etagOf(form: PostedForm): string | undefined {
  const etag = textOf(form, "etag");
  return EntityTagSchema.safeParse(etag).success ? etag : undefined;
}
