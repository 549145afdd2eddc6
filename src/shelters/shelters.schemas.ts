import { z } from "@hono/zod-openapi";
import { EntityTagSchema } from "../api/entity-tags.ts";
import { assignedId, IdentifierParameterSchema, idParams } from "../api/identifiers.ts";
import { listOf, pageParameters, repeatedParameter } from "../api/pagination.ts";
import { wordsParameter } from "../api/search-words.ts";
import { nameSchema } from "../api/text.ts";
import { COUNTRY_CODES } from "./countries.ts";
import { distanceKmSchema } from "./distance.ts";
import { placeFinders, placeRules } from "./near.schemas.ts";

/** What a request for a shelter that is not there is told, whether the id is unknown, deleted or malformed. */
export const SHELTER_NOT_FOUND = "No shelter has this identifier.";

/** The most ids, and countries, one listing of shelters may name. */
const MAX_LISTED = 100;

/** What an address or URL may not hold: spaces, control characters and lone surrogates. */
const UNPRINTABLE = "\\u0000-\\u0020\\u007f-\\u009f\\ud800-\\udfff";
/** An address with one `@` and a dot in its domain. */
const EMAIL_PATTERN = new RegExp(
  `^[^@${UNPRINTABLE}]+@[^@${UNPRINTABLE}]+\\.[^@${UNPRINTABLE}]+$`,
  "u",
);
const PHONE_PATTERN = /^[0-9 +().-]+$/;
const HTTPS_PATTERN = new RegExp(`^https://[^${UNPRINTABLE}]+$`, "u");

const shelterName = nameSchema(100).openapi({
  description: "1–100 characters, not only white space, no control characters; stored as sent.",
  example: "Happy Tails Rescue",
});
const email = z.string().max(254).regex(EMAIL_PATTERN, "Must be an email address").openapi({
  pattern: EMAIL_PATTERN.source,
  description:
    "Where adopters reach the shelter: at most 254 characters, one `@`, a dot in its domain.",
  example: "hello@happytails.example",
});
const phone = z
  .string()
  .min(1)
  .max(32)
  .regex(PHONE_PATTERN, "Must be digits, spaces and + ( ) - .")
  .openapi({
    description: "At most 32 characters of digits, spaces and `+()-.`.",
    example: "+44 20 7946 0000",
  });
const website = z
  .string()
  .max(2048)
  .regex(HTTPS_PATTERN, "Must be an absolute https URL")
  .refine((text) => URL.canParse(text), "Must be an absolute https URL")
  .openapi({
    pattern: HTTPS_PATTERN.source,
    description: "An absolute `https` URL of at most 2,048 characters.",
    example: "https://happytails.example",
  });
const addressLine = (description: string, example: string) =>
  nameSchema(100).openapi({ description, example });
const street = addressLine("Street and number, up to 100 characters.", "1 Park Lane");
const city = addressLine("1–100 characters.", "London");
const region = addressLine("State, county or province, up to 100 characters.", "Greater London");
const postalCode = addressLine("Up to 100 characters.", "W1K 1AA");
const country = z.enum(COUNTRY_CODES).openapi("CountryCode", {
  description: "ISO 3166-1 alpha-2, upper case: one of the 249 assigned codes.",
  example: "GB",
});
const latitude = z.number().min(-90).max(90).openapi({
  description: "Decimal degrees north (WGS 84), −90 to 90. The service does not geocode addresses.",
  example: 51.5072,
});
const longitude = z.number().min(-180).max(180).openapi({
  description: "Decimal degrees east (WGS 84), −180 to 180.",
  example: -0.1276,
});

const AddressSchema = z
  .object({
    street: street.nullable(),
    city,
    region: region.nullable(),
    postalCode: postalCode.nullable(),
    country,
  })
  .openapi("Address", {
    example: {
      street: "1 Park Lane",
      city: "London",
      region: null,
      postalCode: "W1K 1AA",
      country: "GB",
    },
  });

const NewAddressSchema = z
  .strictObject({
    street: street.nullable().optional(),
    city,
    region: region.nullable().optional(),
    postalCode: postalCode.nullable().optional(),
    country,
  })
  .openapi("NewAddress", { example: { city: "London", country: "GB" } });

/** An address's merge patch: members sent replace, `null` clears an optional one. */
const AddressPatchSchema = z
  .strictObject({
    street: street.nullable().optional(),
    city: city.optional(),
    region: region.nullable().optional(),
    postalCode: postalCode.nullable().optional(),
    country: country.optional(),
  })
  .openapi("AddressPatch", {
    description:
      "Members sent replace the shelter's; `null` clears `street`, `region` or `postalCode` and gives 400 for `city` and `country`.",
    example: { street: null },
  });

export const NewShelterSchema = z
  .strictObject({
    name: shelterName,
    email,
    phone: phone.nullable().optional(),
    website: website.nullable().optional(),
    address: NewAddressSchema,
    latitude,
    longitude,
  })
  .openapi("NewShelter", {
    example: {
      name: "Happy Tails Rescue",
      email: "hello@happytails.example",
      address: { city: "London", country: "GB" },
      latitude: 51.5072,
      longitude: -0.1276,
    },
  });
export type NewShelter = z.infer<typeof NewShelterSchema>;

export const ShelterPatchSchema = z
  .strictObject({
    name: shelterName.optional(),
    email: email.optional(),
    phone: phone.nullable().optional(),
    website: website.nullable().optional(),
    address: AddressPatchSchema.optional(),
    latitude: latitude.optional(),
    longitude: longitude.optional(),
  })
  .refine((patch) => Object.keys(patch).length > 0, "Must name at least one field")
  .openapi("ShelterPatch", {
    description:
      "The fields to change (a merge patch); at least one. `null` clears `phone` or `website` and gives 400 for the others; `address` merges member by member. `id`, `etag` and `distanceKm` cannot be sent.",
    minProperties: 1,
    example: { phone: "+44 20 7946 0001", address: { street: null } },
  });
export type ShelterPatch = z.infer<typeof ShelterPatchSchema>;

const exampleShelter = {
  id: 7,
  name: "Happy Tails Rescue",
  email: "hello@happytails.example",
  phone: null,
  website: "https://happytails.example",
  address: {
    street: "1 Park Lane",
    city: "London",
    region: null,
    postalCode: "W1K 1AA",
    country: "GB",
  },
  latitude: 51.5072,
  longitude: -0.1276,
  distanceKm: null,
  etag: '"1"',
};

export const ShelterSchema = z
  .object({
    id: assignedId(7),
    name: z.string(),
    email: z.string(),
    phone: z.string().nullable(),
    website: z.string().nullable(),
    address: AddressSchema,
    latitude: z.number(),
    longitude: z.number(),
    distanceKm: distanceKmSchema,
    etag: EntityTagSchema,
  })
  .openapi("Shelter", { example: exampleShelter });
export type Shelter = z.infer<typeof ShelterSchema>;

export const SheltersSchema = listOf("Shelters", ShelterSchema, {
  description: "A page of shelters, as a bare array.",
  example: [exampleShelter],
});

const { limit, cursor } = pageParameters("shelters");

export const ListSheltersQuerySchema = z
  .object({
    limit,
    id: repeatedParameter(
      "id",
      IdentifierParameterSchema,
      MAX_LISTED,
      `Only these shelters (repeatable, at most ${MAX_LISTED}): those that exist, in the listing's order.`,
    ).openapi({ example: [7] }),
    q: wordsParameter(
      "Words: a shelter matches when every word of `q` begins a word of its name, ignoring case and accents, as for animals (no word: 400).",
      "happy",
    ),
    country: repeatedParameter(
      "country",
      country,
      MAX_LISTED,
      "Only shelters in one of these countries (repeatable).",
    ).openapi({ example: ["GB"] }),
    ...placeFinders,
    cursor,
  })
  .superRefine(placeRules);

export const ShelterIdParamsSchema = idParams(
  "shelterId",
  7,
  "Identifier of the shelter, as assigned on creation.",
);
