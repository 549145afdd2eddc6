import { z } from "@hono/zod-openapi";
import { digitsAsInteger, IdentifierSchema, MAX_ID } from "../api/identifiers.ts";
import { statusPageQuery } from "../api/pagination.ts";
import { nameSchema } from "../api/text.ts";

/** What a request for an animal that is not there is told, whether the id is unknown or malformed. */
export const PET_NOT_FOUND = "No animal has this identifier.";

export const PetStatusSchema = z
  .enum(["available", "pending", "sold"])
  .openapi("PetStatus", { description: "Availability of the animal.", example: "available" });
export type PetStatus = z.infer<typeof PetStatusSchema>;

export const NewPetSchema = z
  .strictObject({
    name: nameSchema(100).openapi({
      description:
        "The animal's name: 1–100 characters, not only white space, no control characters, well-formed Unicode (no lone surrogates); stored as sent.",
      example: "Rex",
    }),
    categoryId: IdentifierSchema.openapi({
      description: "Identifier of the category the animal belongs to.",
      example: 1,
    }),
    status: PetStatusSchema.optional().openapi({ description: "Defaults to `available`." }),
  })
  .openapi("NewPet", { example: { name: "Rex", categoryId: 1, status: "available" } });
export type NewPet = z.infer<typeof NewPetSchema>;

export const PetSchema = z
  .object({
    id: IdentifierSchema.openapi({
      description: "Assigned by the service on creation.",
      example: 42,
    }),
    name: z.string().openapi({ example: "Rex" }),
    categoryId: IdentifierSchema.openapi({ example: 1 }),
    status: PetStatusSchema,
  })
  .openapi("Pet", { example: { id: 42, name: "Rex", categoryId: 1, status: "available" } });
export type Pet = z.infer<typeof PetSchema>;

export const PetsSchema = z
  .array(PetSchema)
  .max(100)
  .openapi("Pets", {
    description: "A page of animals, as a bare array.",
    example: [
      { id: 41, name: "Rex", categoryId: 1, status: "available" },
      { id: 42, name: "Tom", categoryId: 2, status: "sold" },
    ],
  });

export const ListPetsQuerySchema = statusPageQuery("animals", PetStatusSchema);

export const PetIdParamsSchema = z.object({
  petId: digitsAsInteger(z.int().min(1).max(MAX_ID)).openapi({
    param: { name: "petId", in: "path" },
    description: "Identifier of the animal, as assigned on creation.",
    format: "int64",
    example: 42,
  }),
});
