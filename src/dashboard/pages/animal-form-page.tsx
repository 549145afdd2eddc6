import type { Category } from "../../categories/categories.schemas.ts";
import { PET_STATUSES } from "../../db/schema.ts";
import type { Shelter } from "../../shelters/shelters.schemas.ts";
import { ANIMAL_FIELDS, type AnimalField, type AnimalFormValues } from "../animal-form.ts";
import { type FieldErrors, firstInError } from "../form-values.ts";
import { ProfileFields } from "./animal-profile.tsx";
import { RecordForm, type RecordTarget, SelectField, TextField } from "./labelled-fields.tsx";
import { Layout } from "./layout.tsx";

/** The animal statuses as a person reads them, by the API's values. */
export const STATUS_NAMES: Record<(typeof PET_STATUSES)[number], string> = {
  available: "Available",
  pending: "Pending (an adoption is under way)",
  sold: "Adopted",
};

export interface AnimalFormPageProps {
  email: string;
  csrf: string;
  values: AnimalFormValues;
  errors?: FieldErrors<AnimalField>;
  /** Why the whole form was refused (a newer version, a placed order), shown above it. */
  formError?: string;
  categories: Category[];
  /** The account's shelters, for the shelter select. */
  shelters: Shelter[];
  /** A new animal: the form's one-time token. An edit: the animal and the version the form was drawn from. */
  target: RecordTarget;
}

/**
 * Adds an animal, or edits one. Refused, it comes back as posted (or, when
 * the animal changed meanwhile, as it now is), each field's error beside it
 * and the focus on the first field in error.
 */
export function AnimalFormPage(props: AnimalFormPageProps) {
  const { email, csrf, values, errors = {}, categories, shelters, target } = props;
  const focus = firstInError(ANIMAL_FIELDS, errors);
  const editing = "id" in target;
  const categoryOptions = [
    { value: "", label: "Choose a category" },
    ...categories.map((category) => ({ value: String(category.id), label: category.name })),
  ];
  return (
    <Layout title={editing ? "Edit the animal" : "Add an animal"} signedIn={{ email, csrf }}>
      <RecordForm {...props} collection="/dashboard/animals" add="Add the animal">
        <TextField
          name="name"
          label="Name"
          hint="1 to 100 characters."
          value={values.name}
          errors={errors.name}
          autofocus={focus === "name"}
          required
          maxlength={100}
          autocomplete="off"
        />
        <SelectField
          name="categoryId"
          label="Category"
          value={values.categoryId}
          options={categoryOptions}
          errors={errors.categoryId}
          autofocus={focus === "categoryId"}
          required
        />
        <SelectField
          name="status"
          label="Status"
          hint="While an adoption order is placed, the status stays as the order set it."
          value={values.status}
          options={PET_STATUSES.map((status) => ({ value: status, label: STATUS_NAMES[status] }))}
          errors={errors.status}
          autofocus={focus === "status"}
        />
        <ProfileFields values={values} errors={errors} focus={focus} shelters={shelters} />
      </RecordForm>
    </Layout>
  );
}
