import { PET_STATUSES } from "../db/schema.ts";
import { YES_NO_FIELDS } from "../pets/pet-profile.schemas.ts";
import { type NewPet, NewPetSchema, type Pet } from "../pets/pets.schemas.ts";
import { type FieldErrors, type PostedForm, textsByField } from "./form-values.ts";

/** The animal form's fields, in the order the page shows them; their names are the API's. */
export const ANIMAL_FIELDS = [
  "name",
  "categoryId",
  "status",
  "shelterId",
  "breed",
  "age",
  "sex",
  "size",
  ...YES_NO_FIELDS,
  "description",
] as const;
export type AnimalField = (typeof ANIMAL_FIELDS)[number];

/** The form as posted (or drawn from the animal), every field as its text; empty for not known. */
export type AnimalFormValues = Record<AnimalField, string>;

const yesNoError = "Choose yes, no or not known.";

/** What each field's error says, so a person can put it right. */
const FIELD_ERRORS: Record<AnimalField, string> = {
  name: "Enter a name of 1 to 100 characters, not only spaces and without control characters.",
  categoryId: "Choose a category from the list.",
  status: `Choose one of ${PET_STATUSES.join(", ")}.`,
  shelterId: "Choose one of your shelters, or none.",
  breed: "Use 1 to 60 characters without control characters, or leave it empty.",
  age: "Choose an age group from the list, or not known.",
  sex: "Choose female, male or not known.",
  size: "Choose a size from the list, or not known.",
  ...(Object.fromEntries(YES_NO_FIELDS.map((field) => [field, yesNoError])) as Record<
    (typeof YES_NO_FIELDS)[number],
    string
  >),
  description: "Use at most 4,000 characters of plain text.",
};

/** The form's fields drawn from the animal, for its edit form. */
export function animalValuesOf(pet: Pet): AnimalFormValues {
  const text = (value: string | number | boolean | null) => (value === null ? "" : String(value));
  return Object.fromEntries(
    ANIMAL_FIELDS.map((field) => [field, text(pet[field])]),
  ) as AnimalFormValues;
}

/** An empty form for a new animal: available unless the person says otherwise, the rest not known. */
export const NEW_ANIMAL_VALUES: AnimalFormValues = {
  ...(Object.fromEntries(ANIMAL_FIELDS.map((field) => [field, ""])) as AnimalFormValues),
  status: "available",
};

/** A whole number as the form sent it, or the text itself for the schema to refuse. */
const numberOrText = (text: string) => (/^\d{1,16}$/.test(text) ? Number(text) : text);
/** A yes/no field: `true`, `false`, or empty for not known; anything else for the schema to refuse. */
const yesNoOf = (text: string) => (text === "true" ? true : text === "false" ? false : text);
/** An optional field: empty is `null`, not known (which clears it on an edit). */
const known = <T>(text: string, read: (text: string) => T) => (text === "" ? null : read(text));
const same = (text: string) => text;

/**
 * What the animal form asks for, checked by the API's own rules (the body
 * of createPet), with a sentence per field in error. Every field is sent,
 * the profile's empty ones as `null`, so the same body serves an edit as a
 * merge patch that sets every field and clears what was emptied.
 */
export function parseAnimalForm(
  form: PostedForm,
):
  | { ok: true; pet: NewPet; values: AnimalFormValues }
  | { ok: false; errors: FieldErrors<AnimalField>; values: AnimalFormValues } {
  const values = textsByField(form, ANIMAL_FIELDS);
  // A browser sends a textarea's line breaks as CR LF; the description keeps them as LF.
  values.description = values.description.replaceAll("\r\n", "\n");
  const parsed = NewPetSchema.safeParse({
    name: values.name,
    categoryId: numberOrText(values.categoryId),
    // Left out, as the API allows: a new animal is then available, an edit keeps its status.
    status: values.status === "" ? undefined : values.status,
    shelterId: known(values.shelterId, numberOrText),
    breed: known(values.breed, same),
    age: known(values.age, same),
    sex: known(values.sex, same),
    size: known(values.size, same),
    ...Object.fromEntries(YES_NO_FIELDS.map((field) => [field, known(values[field], yesNoOf)])),
    description: known(values.description, same),
  });
  if (parsed.success) return { ok: true, pet: parsed.data, values };
  const errors: FieldErrors<AnimalField> = {};
  for (const issue of parsed.error.issues) {
    const field = ANIMAL_FIELDS.find((name) => name === issue.path[0]);
    if (field) errors[field] = [FIELD_ERRORS[field]];
  }
  return { ok: false, errors, values };
}
