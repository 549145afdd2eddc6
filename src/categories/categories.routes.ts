import { conditionalChange, entityTagHeader, IfMatchHeaderSchema } from "../api/entity-tags.ts";
import { pagedListing } from "../api/pagination.ts";
import { changedReply, readReplies, recordRefusals } from "../api/record-responses.ts";
import { jsonBody, patchBody, patchTypeRefused } from "../api/request-bodies.ts";
import {
  ANY_OPERATION,
  type DocumentedError,
  deletedReply,
  errorResponses,
  jsonReply,
  stringHeader,
} from "../api/responses.ts";
import { type ApiRoute, apiRoutes } from "../api/route-table.ts";
import {
  CATEGORY_NOT_FOUND,
  CategoriesSchema,
  CategoryIdParamsSchema,
  CategoryPatchSchema,
  CategorySchema,
  ListCategoriesQuerySchema,
  NewCategorySchema,
} from "./categories.schemas.ts";

/** The `categories` tag of the document. */
export const categoriesTag = {
  name: "categories",
  description:
    "The kinds animals are sorted into (beta). The catalogue starts with seven (ids 1–7: Dogs, Cats, Rabbits, Birds, Small mammals, Reptiles, Fish), which the operator's account owns; any key may add more. Names are unique ignoring case and accents. Only the account whose key made a category may rename or delete it.",
};

const tagged = { tags: [categoriesTag.name], stability: "beta" } satisfies Partial<ApiRoute>;
const managing = { ...tagged, invalidIdMessage: CATEGORY_NOT_FOUND } satisfies Partial<ApiRoute>;

const { notFound, notOwner, stale } = recordRefusals("category", CATEGORY_NOT_FOUND);
const nameTaken: DocumentedError = {
  status: 409,
  codes: ["category_exists"],
  description: "Another category has this name, ignoring case and accents; the message names it.",
};

const CONDITIONAL = conditionalChange(
  "made the category",
  " (the seven it starts with: the operator's)",
);

/** The categories' operations, keyed by operation id: the one declaration of each. */
export const categoryRoutes = apiRoutes({
  listCategories: {
    ...tagged,
    scope: "pets:read",
    method: "get",
    path: "/categories",
    summary: "List categories (beta)",
    description:
      'Categories in ascending id order, stable across pages. The body is the bare array; when more follow, `Link: <…>; rel="next"` points at the next page. Follow it rather than building the cursor.',
    ...pagedListing({
      query: ListCategoriesQuerySchema,
      page: CategoriesSchema,
      description: "A page of categories (possibly empty).",
      next: '<https://api.petstore.example.com/v1/categories?limit=20&cursor=cDE6Nw>; rel="next"',
    }),
  },
  getCategory: {
    ...managing,
    scope: "pets:read",
    method: "get",
    path: "/categories/{categoryId}",
    summary: "Fetch one category (beta)",
    description:
      "One category; its `ETag` is its `etag`. A `categoryId` that is not a valid identifier gives 404, like one that does not exist or was deleted.",
    request: { params: CategoryIdParamsSchema },
    responses: readReplies("The category.", CategorySchema, notFound),
  },
  createCategory: {
    ...tagged,
    scope: "pets:write",
    method: "post",
    path: "/categories",
    summary: "Add a category (beta)",
    description:
      "Adds a category, owned by the account of the key that sends it. A name another category has, ignoring case and accents, gives 409 `category_exists`.",
    request: {
      body: jsonBody(NewCategorySchema),
    },
    responses: {
      201: jsonReply("The category was added.", CategorySchema, {
        Location: stringHeader("Address of the new category.", "/v1/categories/8"),
        ETag: entityTagHeader,
      }),
      ...errorResponses([400, 401, nameTaken, 413, 415, ...ANY_OPERATION]),
    },
  },
  updateCategory: {
    ...managing,
    scope: "pets:write",
    method: "patch",
    path: "/categories/{categoryId}",
    summary: "Rename a category (beta)",
    description: `Gives the category a new name, as \`application/json\` or \`application/merge-patch+json\`. Its own name again answers 200 with the same \`etag\` and writes nothing; a name another category has, ignoring case and accents, gives 409 \`category_exists\`. ${CONDITIONAL}`,
    request: {
      params: CategoryIdParamsSchema,
      headers: IfMatchHeaderSchema,
      body: patchBody(CategoryPatchSchema),
    },
    responses: {
      200: changedReply("The category after the change.", CategorySchema),
      ...errorResponses([
        400,
        401,
        notOwner,
        notFound,
        nameTaken,
        stale,
        413,
        patchTypeRefused,
        ...ANY_OPERATION,
      ]),
    },
  },
  deleteCategory: {
    ...managing,
    scope: "pets:write",
    method: "delete",
    path: "/categories/{categoryId}",
    summary: "Delete a category (beta)",
    description: `Deletes the category: from then on it is 404, never listed, and no animal can be put in it; its name is free again and its id never given to another. While an animal that is not deleted belongs to it, 409 \`category_in_use\`. ${CONDITIONAL}`,
    request: { params: CategoryIdParamsSchema, headers: IfMatchHeaderSchema },
    responses: {
      204: deletedReply,
      ...errorResponses([
        400,
        401,
        notOwner,
        notFound,
        {
          status: 409,
          codes: ["category_in_use"],
          description: "An animal that is not deleted belongs to the category.",
        },
        stale,
        ...ANY_OPERATION,
      ]),
    },
  },
});
