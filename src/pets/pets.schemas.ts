import { z } from "@hono/zod-openapi";
import { EntityTagSchema } from "../api/entity-tags.ts";
import {
  assignedId,
  IdentifierParameterSchema,
  IdentifierSchema,
  idParams,
} from "../api/identifiers.ts";
import { listOf, pageParameters, repeatedParameter } from "../api/pagination.ts";
import { wordsParameter } from "../api/search-words.ts";
import { nameSchema } from "../api/text.ts";
import { PET_STATUSES } from "../db/schema.ts";
import { distanceKmSchema } from "../shelters/distance.ts";
import { placeFinders, placeRules } from "../shelters/near.schemas.ts";
import { atMostProfileValues, profileFinders } from "./pet-finders.schemas.ts";
import { profileInput, profileOutput } from "./pet-profile.schemas.ts";

/** What a request for an animal that is not there is told, whether the id is unknown, deleted or malformed. */
export const PET_NOT_FOUND = "No animal has this identifier.";

/** The most ids, and categories, one listing may name. */
const MAX_LISTED_IDS = 100;

export const PetStatusSchema = z
  .enum(PET_STATUSES)
  .openapi("PetStatus", { description: "Availability of the animal.", example: "available" });
export type PetStatus = z.infer<typeof PetStatusSchema>;

const petName = nameSchema(100).openapi("PetName", {
  description:
    "The animal's name: 1–100 characters, not only white space, no control characters, well-formed Unicode (no lone surrogates); stored as sent.",
  example: "Rex",
});

const categoryId = IdentifierSchema.openapi("PetCategoryId", {
  description:
    "Identifier of the category the animal belongs to; one that names no category gives 422.",
  example: 1,
});

export const NewPetSchema = z
  .strictObject({
    name: petName,
    categoryId,
    status: PetStatusSchema.optional().openapi({ description: "Defaults to `available`." }),
    ...profileInput,
  })
  .openapi("NewPet", {
    description:
      "The animal to add: `name` and `categoryId`, and any of its profile (each optional, `null` when not known).",
    example: {
      name: "Rex",
      categoryId: 1,
      status: "available",
      age: "young",
      goodWithChildren: true,
    },
  });
export type NewPet = z.infer<typeof NewPetSchema>;

export const PetPatchSchema = z
  .strictObject({
    name: petName.optional(),
    categoryId: categoryId.optional(),
    status: PetStatusSchema.optional().openapi({
      description: "While a placed order owns the animal's status, changing it gives 409.",
    }),
    ...profileInput,
  })
  .refine((patch) => Object.keys(patch).length > 0, "Must name at least one field")
  .openapi("PetPatch", {
    description:
      "The fields to change; at least one. `null` clears a profile field and gives 400 for `name`, `categoryId` and `status`. `id`, `etag`, `photoUrls` and `distanceKm` cannot be sent.",
    minProperties: 1,
    example: { name: "Rex the Brave" },
  });
export type PetPatch = z.infer<typeof PetPatchSchema>;

/** The animal the document shows, which the events' examples show too. */
export const examplePet = {
  id: 42,
  name: "Rex",
  categoryId: 1,
  status: "available",
  shelterId: 7,
  breed: "Labrador Retriever",
  age: "young",
  sex: "male",
  size: "large",
  goodWithChildren: true,
  goodWithDogs: true,
  goodWithCats: null,
  houseTrained: true,
  specialNeeds: false,
  spayedNeutered: true,
  description: null,
  distanceKm: null,
  etag: '"1"',
  photoUrls: [],
};

export const PetSchema = z
  .object({
    id: assignedId(42),
    name: z.string().openapi({ example: "Rex" }),
    categoryId: IdentifierSchema.openapi({ example: 1 }),
    status: PetStatusSchema,
    ...profileOutput,
    distanceKm: distanceKmSchema,
    etag: EntityTagSchema,
    photoUrls: z.array(z.url()).openapi({
      description:
        "Absolute public addresses of the animal's photos, oldest first; empty when it has none.",
      example: [],
    }),
  })
  .openapi("Pet", { example: examplePet });
export type Pet = z.infer<typeof PetSchema>;

export const PetsSchema = listOf("Pets", PetSchema, {
  description: "A page of animals, as a bare array.",
  example: [
    { ...examplePet, id: 41 },
    { ...examplePet, name: "Tom", categoryId: 2, status: "sold", etag: '"4"' },
  ],
});

const { limit, cursor } = pageParameters("animals");

export const ListPetsQuerySchema = z
  .object({
    limit,
    status: repeatedParameter(
      "status",
      PetStatusSchema,
      PET_STATUSES.length,
      "Only animals with one of these statuses (repeat the parameter for more than one; beta when repeated).",
    ).openapi({ example: ["available"] }),
    categoryId: repeatedParameter(
      "categoryId",
      IdentifierParameterSchema,
      MAX_LISTED_IDS,
      `Only animals in one of these categories (beta; repeatable, at most ${MAX_LISTED_IDS}).`,
    ).openapi({ example: [1] }),
    id: repeatedParameter(
      "id",
      IdentifierParameterSchema,
      MAX_LISTED_IDS,
      `Only these animals (beta; repeatable, at most ${MAX_LISTED_IDS}): those that exist, in the listing's order; ids that name no animal are left out. How to fetch known animals.`,
    ).openapi({ example: [42] }),
    q: wordsParameter(
      "Words (beta): an animal matches when every word of `q` begins a word of its name, ignoring case and accents (`bel` finds Bella and Bélla). A word is a run of letters and digits; everything else, quotes and operators included, only separates words, so no text makes the search fail (no word: 400). `æ`, `ø` and `ß` are not folded. Combined with another filter, a page may hold fewer animals than `limit`, even none, with a `Link` to go on.",
      "bel",
    ),
    direction: z
      .enum(["asc", "desc"])
      .default("asc")
      .openapi({
        param: {
          name: "direction",
          in: "query",
          description: "`asc` lists oldest first (ascending id), `desc` newest first (beta).",
        },
        example: "desc",
      }),
    ...profileFinders,
    ...placeFinders,
    cursor,
  })
  .superRefine(atMostProfileValues)
  .superRefine(placeRules);

export const PetIdParamsSchema = idParams(
  "petId",
  42,
  "Identifier of the animal, as assigned on creation.",
);
