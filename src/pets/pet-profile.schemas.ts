import { z } from "@hono/zod-openapi";
import { IdentifierSchema } from "../api/identifiers.ts";
import { nameSchema, plainTextSchema } from "../api/text.ts";
import { PET_AGES, PET_SEXES, PET_SIZES } from "../db/pet-profile-columns.ts";

/**
 * What adopters choose an animal by: where it lives, its breed, age, sex,
 * size and temperament. Every field is `null` when not known; a request may
 * set it, or clear it with `null`.
 */

export const PetAgeSchema = z
  .enum(PET_AGES)
  .openapi("PetAge", { description: "The animal's age group.", example: "young" });
export const PetSexSchema = z
  .enum(PET_SEXES)
  .openapi("PetSex", { description: "The animal's sex.", example: "female" });
export const PetSizeSchema = z
  .enum(PET_SIZES)
  .openapi("PetSize", { description: "The animal's size when grown.", example: "medium" });

export type PetAge = z.infer<typeof PetAgeSchema>;
export type PetSex = z.infer<typeof PetSexSchema>;
export type PetSize = z.infer<typeof PetSizeSchema>;

/** The profile's yes/no fields, in the order a Pet lists them. */
export const YES_NO_FIELDS = [
  "goodWithChildren",
  "goodWithDogs",
  "goodWithCats",
  "houseTrained",
  "specialNeeds",
  "spayedNeutered",
] as const;
export type YesNoField = (typeof YES_NO_FIELDS)[number];

const yesNo = (description: string) => z.boolean().openapi({ description, example: true });

/** The profile's fields as a request sends them, each a value. */
const profileFields = {
  shelterId: IdentifierSchema.openapi({
    description:
      "The shelter the animal lives in: one of the caller's account (another account's gives 403 `not_owner`; one that names no shelter 422 `unknown_shelter`).",
    example: 7,
  }),
  breed: nameSchema(60).openapi({
    description: "The breed, 1–60 characters as a name is; found by `breed` as `q` finds names.",
    example: "Labrador Retriever",
  }),
  age: PetAgeSchema,
  sex: PetSexSchema,
  size: PetSizeSchema,
  goodWithChildren: yesNo("Whether it gets on with children."),
  goodWithDogs: yesNo("Whether it gets on with dogs."),
  goodWithCats: yesNo("Whether it gets on with cats."),
  houseTrained: yesNo("Whether it is house-trained."),
  specialNeeds: yesNo("Whether it has special needs."),
  spayedNeutered: yesNo("Whether it is spayed or neutered."),
  description: plainTextSchema(4000).openapi({
    description: "About the animal, as plain text of at most 4,000 characters.",
    example: "Loves long walks and a warm sofa.",
  }),
};

type ProfileFields = typeof profileFields;

/** The profile as a request body may send it: each field optional, `null` for not known. */
export const profileInput = Object.fromEntries(
  Object.entries(profileFields).map(([key, schema]) => [key, schema.nullable().optional()]),
) as { [K in keyof ProfileFields]: z.ZodOptional<z.ZodNullable<ProfileFields[K]>> };

/** The profile as a Pet carries it: every field, `null` when not known. */
export const profileOutput = Object.fromEntries(
  Object.entries(profileFields).map(([key, schema]) => [key, schema.nullable()]),
) as { [K in keyof ProfileFields]: z.ZodNullable<ProfileFields[K]> };

/** The profile's field names, in the order a Pet lists them. */
export const PROFILE_FIELDS = Object.keys(profileFields) as (keyof ProfileFields)[];

/** An animal's profile: each field's value, or null when not known. */
export type PetProfile = { [K in keyof ProfileFields]: z.output<ProfileFields[K]> | null };

/** The profile fields a request body names, as it names them (`null` for those it clears). */
export function profileOf(body: Partial<PetProfile>): Partial<PetProfile> {
  return Object.fromEntries(
    PROFILE_FIELDS.filter((field) => body[field] !== undefined).map((field) => [
      field,
      body[field],
    ]),
  );
}
