import { z } from "@hono/zod-openapi";

/** The largest integer a JSON client can round-trip exactly (2^53 − 1). */
export const MAX_ID = Number.MAX_SAFE_INTEGER;

export const PetStatusSchema = z
  .enum(["available", "pending", "sold"])
  .openapi("PetStatus", { description: "Availability of the animal.", example: "available" });
export type PetStatus = z.infer<typeof PetStatusSchema>;

const IdentifierSchema = z.int().min(1).max(MAX_ID).openapi({ format: "int64" });

export const NewPetSchema = z
  .strictObject({
    name: z
      .string()
      .min(1)
      .max(100)
      .refine((name) => name.trim().length > 0, "Must contain a character other than white space")
      .openapi({ description: "The animal's name, 1–100 characters.", example: "Rex" }),
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

export const PetsSchema = z.array(PetSchema).openapi("Pets");

export const ListPetsQuerySchema = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(100)
    .default(20)
    .openapi({
      param: { name: "limit", in: "query" },
      description: "Most animals to return.",
      example: 20,
    }),
  status: PetStatusSchema.optional().openapi({
    param: { name: "status", in: "query" },
    description: "Only animals with this status.",
  }),
  cursor: z
    .string()
    .optional()
    .openapi({
      param: { name: "cursor", in: "query" },
      description: 'Opaque position from a previous page\'s `Link: rel="next"`; never build it.',
    }),
});

export const PetIdParamsSchema = z.object({
  petId: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_ID)
    .openapi({ param: { name: "petId", in: "path" }, format: "int64", example: 42 }),
});
