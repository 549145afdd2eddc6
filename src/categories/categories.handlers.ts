import { decodeCursor } from "../api/cursor.ts";
import { nextPageLink, pageReply } from "../api/pagination.ts";
import { createdReply, foundReply, recordReply } from "../api/record-replies.ts";
import type { RouteHandlers } from "../api/route-handlers.ts";
import { changeRequestOf } from "../catalogue/changes.ts";
import { deletionReply } from "../catalogue/deletion-reply.ts";
import { refusalError } from "../catalogue/refusals.ts";
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
    const { categoryId } = c.req.valid("param");
    return foundReply(c, await findCategory(c.get("services").db, categoryId), CATEGORY_NOT_FOUND);
  },

  createCategory: async (c) => {
    const { name } = c.req.valid("json");
    const made = await createCategory(c.get("services").db, {
      name,
      apiKeyHash: c.get("apiKey").hash,
      now: Date.now(),
    });
    if (made.kind !== "made") throw refusalError(made, category);
    return createdReply(c, made.category, "/v1/categories");
  },

  updateCategory: async (c) => {
    const request = changeRequestOf(c, c.req.valid("param").categoryId);
    const outcome = await editCategory(c.get("services").db, request, c.req.valid("json").name);
    if (outcome.kind !== "renamed" && outcome.kind !== "unchanged")
      throw refusalError(outcome, category);
    return recordReply(c, outcome.category, 200);
  },

  deleteCategory: (c) =>
    deletionReply(c, c.req.valid("param").categoryId, removeCategory, category),
} satisfies RouteHandlers<typeof categoryRoutes>;
