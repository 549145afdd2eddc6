import { z } from "@hono/zod-openapi";
import { EntityTagSchema } from "../api/entity-tags.ts";
import { assignedId, idParams } from "../api/identifiers.ts";
import { listOf, pageParameters } from "../api/pagination.ts";
import { nameSchema } from "../api/text.ts";

/** What a request for a category that is not there is told, whether the id is unknown, deleted or malformed. */
export const CATEGORY_NOT_FOUND = "No category has this identifier.";

const categoryName = nameSchema(50).openapi("CategoryName", {
  description:
    "1–50 characters, not only white space, no control characters; stored as sent. Unique ignoring case and accents: no two categories have the same words (as `q` reads them: `æ`, `ø` and `ß` are not folded).",
  example: "Cats",
});

export const NewCategorySchema = z
  .strictObject({ name: categoryName })
  .openapi("NewCategory", { example: { name: "Ferrets" } });

export const CategoryPatchSchema = z.strictObject({ name: categoryName }).openapi("CategoryPatch", {
  description: "The new name (a merge patch's `null` gives 400). `id` and `etag` cannot be sent.",
  example: { name: "Small pets" },
});

export const CategorySchema = z
  .object({
    id: assignedId(2),
    name: z.string().openapi({ example: "Cats" }),
    etag: EntityTagSchema,
  })
  .openapi("Category", { example: { id: 2, name: "Cats", etag: '"1"' } });
export type Category = z.infer<typeof CategorySchema>;

export const CategoriesSchema = listOf("Categories", CategorySchema, {
  description: "A page of categories, as a bare array.",
  example: [
    { id: 1, name: "Dogs", etag: '"1"' },
    { id: 2, name: "Cats", etag: '"1"' },
  ],
});

const { limit, cursor } = pageParameters("categories");
export const ListCategoriesQuerySchema = z.object({ limit, cursor });

export const CategoryIdParamsSchema = idParams(
  "categoryId",
  2,
  "Identifier of the category, as assigned on creation.",
);
