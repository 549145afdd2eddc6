import { type FieldErrors, firstInError } from "../form-values.ts";
import {
  COUNTRY_CHOICES,
  SHELTER_FIELDS,
  type ShelterField,
  type ShelterFormValues,
} from "../shelter-form.ts";
import { RecordForm, type RecordTarget, SelectField, TextField } from "./labelled-fields.tsx";
import { Layout } from "./layout.tsx";

export interface ShelterFormPageProps {
  email: string;
  csrf: string;
  values: ShelterFormValues;
  errors?: FieldErrors<ShelterField>;
  /** Why the whole form was refused (the plan's cap, a newer version), shown above it. */
  formError?: string;
  /** A new shelter: the form's one-time token. An edit: the shelter and the version the form was drawn from. */
  target: RecordTarget;
}

/**
 * Adds a shelter, or edits one: its contact, its address (each member by
 * its own name) and its place as a latitude and longitude. Refused, it
 * comes back with each field's error and the focus on the first in error.
 */
export function ShelterFormPage(props: ShelterFormPageProps) {
  const { email, csrf, values, errors = {}, target } = props;
  const focus = firstInError(SHELTER_FIELDS, errors);
  const editing = "id" in target;
  const text = (
    name: ShelterField,
    label: string,
    extra: Omit<
      Parameters<typeof TextField>[0],
      "name" | "label" | "value" | "errors" | "autofocus"
    > = {},
  ) => (
    <TextField
      name={name}
      label={label}
      value={values[name]}
      errors={errors[name]}
      autofocus={focus === name}
      {...extra}
    />
  );
  return (
    <Layout title={editing ? "Edit the shelter" : "Add a shelter"} signedIn={{ email, csrf }}>
      <RecordForm {...props} collection="/dashboard/shelters" add="Add the shelter">
        {text("name", "Name", { required: true, maxlength: 100, autocomplete: "organization" })}
        <fieldset>
          <legend>How adopters reach it</legend>
          {text("email", "Email", { type: "email", required: true, autocomplete: "email" })}
          {text("phone", "Phone (optional)", { type: "tel", maxlength: 32, autocomplete: "tel" })}
          {text("website", "Website (optional)", {
            type: "url",
            hint: "An address that begins with https://.",
            autocomplete: "url",
          })}
        </fieldset>
        <fieldset>
          <legend>Address</legend>
          {text("street", "Street and number (optional)", { autocomplete: "address-line1" })}
          {text("city", "Town or city", { required: true, autocomplete: "address-level2" })}
          {text("region", "State, county or province (optional)", {
            autocomplete: "address-level1",
          })}
          {text("postalCode", "Postal code (optional)", { autocomplete: "postal-code" })}
          <SelectField
            name="country"
            label="Country"
            value={values.country}
            options={[{ value: "", label: "Choose a country" }, ...COUNTRY_CHOICES]}
            errors={errors.country}
            autofocus={focus === "country"}
            required
          />
        </fieldset>
        <fieldset>
          <legend>Where it is on the map</legend>
          <p class="hint">
            Decimal degrees (WGS 84), as a map application shows them when you press on a place: we
            do not look addresses up. Adopters searching near them find its animals.
          </p>
          {text("latitude", "Latitude", {
            hint: "From -90 (south) to 90 (north), such as 51.5072.",
            inputmode: "decimal",
            required: true,
          })}
          {text("longitude", "Longitude", {
            hint: "From -180 (west) to 180 (east), such as -0.1276.",
            inputmode: "decimal",
            required: true,
          })}
        </fieldset>
      </RecordForm>
    </Layout>
  );
}
