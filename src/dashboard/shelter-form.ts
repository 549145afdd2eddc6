import { COUNTRY_CODES } from "../shelters/countries.ts";
import { type NewShelter, NewShelterSchema, type Shelter } from "../shelters/shelters.schemas.ts";
import { type FieldErrors, type PostedForm, textsByField } from "./form-values.ts";

/** The shelter form's fields, in the order the page shows them; their names are the API's (the address's members by their own). */
export const SHELTER_FIELDS = [
  "name",
  "email",
  "phone",
  "website",
  "street",
  "city",
  "region",
  "postalCode",
  "country",
  "latitude",
  "longitude",
] as const;
export type ShelterField = (typeof SHELTER_FIELDS)[number];

/** The form as posted (or drawn from the shelter), every field as its text. */
export type ShelterFormValues = Record<ShelterField, string>;

/** What each field's error says, so a person can put it right. */
const FIELD_ERRORS: Record<ShelterField, string> = {
  name: "Enter a name of 1 to 100 characters, not only spaces.",
  email: "Enter the email address adopters write to, such as hello@shelter.example.",
  phone: "Use at most 32 digits, spaces and + ( ) - . characters, or leave it empty.",
  website: "Enter an address that begins with https://, or leave it empty.",
  street: "Use at most 100 characters, or leave it empty.",
  city: "Enter the town or city, 1 to 100 characters.",
  region: "Use at most 100 characters, or leave it empty.",
  postalCode: "Use at most 100 characters, or leave it empty.",
  country: "Choose the country from the list.",
  latitude: "Enter the latitude in decimal degrees, from -90 to 90, such as 51.5072.",
  longitude: "Enter the longitude in decimal degrees, from -180 to 180, such as -0.1276.",
};

export const NEW_SHELTER_VALUES: ShelterFormValues = Object.fromEntries(
  SHELTER_FIELDS.map((field) => [field, ""]),
) as ShelterFormValues;

/** The form's fields drawn from the shelter, for its edit form. */
export function shelterValuesOf(shelter: Shelter): ShelterFormValues {
  const { address } = shelter;
  return {
    name: shelter.name,
    email: shelter.email,
    phone: shelter.phone ?? "",
    website: shelter.website ?? "",
    street: address.street ?? "",
    city: address.city,
    region: address.region ?? "",
    postalCode: address.postalCode ?? "",
    country: address.country,
    latitude: String(shelter.latitude),
    longitude: String(shelter.longitude),
  };
}

/** Decimal degrees as typed (a comma as the decimal sign too), or the text for the schema to refuse. */
function degrees(text: string): number | string {
  const normal = text.trim().replace(",", ".");
  return /^[+-]?\d{1,3}(\.\d{1,15})?$/.test(normal) ? Number(normal) : text;
}

/** An optional field: empty is null (not known, or cleared). */
const optional = (text: string) => (text.trim() === "" ? null : text);

/**
 * What the shelter form asks for, checked by the API's own rules (the body
 * of createShelter), with a sentence per field in error. Every field is
 * sent, empty ones as `null`, so the same body is an edit's merge patch
 * that sets every field and clears what was emptied.
 */
export function parseShelterForm(
  form: PostedForm,
):
  | { ok: true; shelter: NewShelter; values: ShelterFormValues }
  | { ok: false; errors: FieldErrors<ShelterField>; values: ShelterFormValues } {
  const values = textsByField(form, SHELTER_FIELDS);
  const parsed = NewShelterSchema.safeParse({
    name: values.name,
    email: values.email.trim(),
    phone: optional(values.phone),
    website: optional(values.website.trim()),
    address: {
      street: optional(values.street),
      city: values.city,
      region: optional(values.region),
      postalCode: optional(values.postalCode),
      country: values.country,
    },
    latitude: degrees(values.latitude),
    longitude: degrees(values.longitude),
  });
  if (parsed.success) return { ok: true, shelter: parsed.data, values };
  const errors: FieldErrors<ShelterField> = {};
  for (const issue of parsed.error.issues) {
    const [first, second] = issue.path;
    const name = first === "address" ? second : first;
    const field = SHELTER_FIELDS.find((each) => each === name);
    if (field) errors[field] = [FIELD_ERRORS[field]];
  }
  return { ok: false, errors, values };
}

const regionNames = new Intl.DisplayNames(["en"], { type: "region", fallback: "code" });

/** The countries for the form's select: each code with its English name, by name. */
export const COUNTRY_CHOICES = COUNTRY_CODES.map((code) => ({
  value: code,
  label: `${regionNames.of(code) ?? code} (${code})`,
})).sort((a, b) => a.label.localeCompare(b.label, "en"));

/** Where OpenStreetMap shows the point, marked. */
export function openStreetMapUrl(latitude: number, longitude: number): string {
  return `https://www.openstreetmap.org/?mlat=${latitude}&mlon=${longitude}#map=16/${latitude}/${longitude}`;
}
