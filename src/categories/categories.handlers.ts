import { decodeCursor } from "../api/cursor.ts";
import { nextPageLink, pageReply } from "../api/pagination.ts";
import type { RouteHandlers } from "../api/route-handlers.ts";
import { changeRequestOf } from "../catalogue/changes.ts";
import { refusalError } from "../catalogue/refusals.ts";
import { ApiError } from "../errors.ts";
import { createCategory, findCategory, listCategories } from "./categories.queries.ts";
import type { categoryRoutes } from "./categories.routes.ts";
import { CATEGORY_NOT_FOUND } from "./categories.schemas.ts";
import { editCategory, removeCategory } from "./category-edits.ts";

/** How a refusal's error names a category. */
const category = { noun: "category", notFound: CATEGORY_NOT_FOUND } as const;

/** The categories' handlers, one per route of the table. */
export const categoryHandlers = {
  listCategories: async (c) => {
    const { limit, cursor } = c.req.valid("query");
    const afterId = cursor === undefined ? 0 : decodeCursor(cursor);
    const page = await listCategories(c.get("services").db, { limit, afterId });
    const last = page.categories.at(-1);
    const next = page.hasMore && last ? nextPageLink(c.req.url, { limit }, last.id) : undefined;
    return pageReply(c, page.categories, next);
  },

  getCategory: async (c) => {
    const category = await findCategory(c.get("services").db, c.req.valid("param").categoryId);
    if (!category) throw new ApiError("not_found", CATEGORY_NOT_FOUND);
    c.header("ETag", category.etag);
    return c.json(category, 200);
  },

  createCategory: async (c) => {
    const { name } = c.req.valid("json");
    const made = await createCategory(c.get("services").db, {
      name,
      apiKeyHash: c.get("apiKey").hash,
      now: Date.now(),
    });
    if (made.kind !== "made") throw refusalError(made, category);
    c.header("Location", `/v1/categories/${made.category.id}`);
    c.header("ETag", made.category.etag);
    return c.json(made.category, 201);
  },

  updateCategory: async (c) => {
    const request = changeRequestOf(c, c.req.valid("param").categoryId);
    const outcome = await editCategory(c.get("services").db, request, c.req.valid("json").name);
    if (outcome.kind !== "renamed" && outcome.kind !== "unchanged")
      throw refusalError(outcome, category);
    c.header("ETag", outcome.category.etag);
    return c.json(outcome.category, 200);
  },

  deleteCategory: async (c) => {
    const request = changeRequestOf(c, c.req.valid("param").categoryId);
    const outcome = await removeCategory(c.get("services").db, request, Date.now());
    if (outcome.kind !== "deleted") throw refusalError(outcome, category);
    return c.body(null, 204);
  },
} satisfies RouteHandlers<typeof categoryRoutes>;
