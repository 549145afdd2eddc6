import { pagedListing } from "../api/pagination.ts";
import { readReplies } from "../api/record-responses.ts";
import { jsonBody } from "../api/request-bodies.ts";
import { ANY_OPERATION, createdHeaders, errorResponses, jsonReply } from "../api/responses.ts";
import { type ApiRoute, apiRoutes } from "../api/route-table.ts";
import { messages } from "../errors.ts";
import { PET_NOT_FOUND } from "../pets/pets.schemas.ts";
import {
  ListOrdersQuerySchema,
  NewOrderSchema,
  ORDER_NOT_FOUND,
  OrderIdParamsSchema,
  OrderSchema,
  OrdersSchema,
} from "./orders.schemas.ts";

/** How orders move an animal through its states: the contract every store operation follows. */
const STATE_TABLE = [
  "| order status | moved by | condition | next | the animal |",
  "|---|---|---|---|---|",
  "| (none) | `POST /store/orders` (`placeOrder`) | the animal is `available` | `placed` | `available` → `pending` |",
  "| `placed` | `POST /store/orders/{orderId}/complete` (`completeOrder`) | — | `completed` | `pending` → `sold` |",
  "| `placed` | `POST /store/orders/{orderId}/cancel` (`cancelOrder`) | — | `cancelled` | `pending` → `available` |",
].join("\n");

const TOGETHER =
  "An order and its animal change together or not at all; under concurrency exactly one request makes a move, and the others get 409.";

/** The `store` tag of the document, with the state table. */
export const storeTag = {
  name: "store",
  description: `Orders: how an animal is adopted (experimental). Orders belong to the account of the key that placed them; animals are one catalogue shared by all.\n\n${STATE_TABLE}\n\n${TOGETHER}`,
};

const store = { tags: [storeTag.name], stability: "experimental" } satisfies Partial<ApiRoute>;

/** completeOrder and cancelOrder: the same shape, one row of the state table each. */
function moveRoute(move: "complete" | "cancel", summary: string, row: string) {
  const [moved, other] =
    move === "complete" ? ["completed", "cancelled"] : ["cancelled", "completed"];
  return {
    ...store,
    scope: "orders:write",
    method: "post",
    path: `/store/orders/{orderId}/${move}`,
    invalidIdMessage: ORDER_NOT_FOUND,
    summary,
    description: `${row} Takes no body. Only a \`placed\` order moves: any other gives 409 \`invalid_transition\`, naming the order's status. Another account's order, or an \`orderId\` that is not a valid identifier, gives 404.\n\n${STATE_TABLE}\n\n${TOGETHER}`,
    request: { params: OrderIdParamsSchema },
    responses: {
      200: jsonReply(`The order, now \`${moved}\`.`, OrderSchema),
      ...errorResponses([
        401,
        [404, ORDER_NOT_FOUND],
        {
          status: 409,
          codes: ["invalid_transition"],
          description: "The order is not `placed`.",
          message: messages.invalidTransition(other, moved),
        },
        ...ANY_OPERATION,
      ]),
    },
  } satisfies ApiRoute;
}

/** The store's operations, keyed by operation id: the one declaration of each. */
export const orderRoutes = apiRoutes({
  listOrders: {
    ...store,
    scope: "orders:read",
    method: "get",
    path: "/store/orders",
    summary: "List the account's orders",
    description:
      'The orders of the caller\'s account in ascending id order (placing order), stable across pages; `status` filters by `placed`, `completed` or `cancelled`. The body is the bare array; when more orders follow, `Link: <…>; rel="next"` points at the next page. Follow it rather than building the cursor.',
    ...pagedListing({
      query: ListOrdersQuerySchema,
      page: OrdersSchema,
      description: "A page of orders (possibly empty).",
      next: '<https://api.petstore.example.com/v1/store/orders?limit=20&status=placed&cursor=cDE6Nw>; rel="next"',
    }),
  },
  placeOrder: {
    ...store,
    scope: "orders:write",
    method: "post",
    path: "/store/orders",
    idempotent: true,
    summary: "Order an animal",
    description: `Places an order for an \`available\` animal, which becomes \`pending\`. An unknown \`petId\` gives 404; an animal that is \`pending\` or \`sold\` gives 409 \`pet_not_available\`, naming its status. A replay is the first response even if the order moved on since; a refused placement is not remembered: its retry tries again.\n\n${STATE_TABLE}\n\n${TOGETHER}`,
    request: {
      body: jsonBody(NewOrderSchema),
    },
    responses: {
      201: jsonReply(
        "The order was placed; its animal is now `pending`.",
        OrderSchema,
        createdHeaders("Address of the new order.", "/v1/store/orders/7"),
      ),
      ...errorResponses([
        400,
        401,
        { status: 404, message: PET_NOT_FOUND, description: "No animal has this `petId`." },
        {
          status: 409,
          codes: ["pet_not_available"],
          description:
            "The animal is not `available`: it is `pending` or `sold`, as the message says.",
        },
        413,
        415,
        422,
        ...ANY_OPERATION,
      ]),
    },
  },
  getOrder: {
    ...store,
    scope: "orders:read",
    method: "get",
    path: "/store/orders/{orderId}",
    invalidIdMessage: ORDER_NOT_FOUND,
    summary: "Fetch one order",
    description:
      "One order of the caller's account. Another account's order, or an `orderId` that is not a valid identifier, gives 404 like one that does not exist.",
    request: { params: OrderIdParamsSchema },
    responses: readReplies("The order.", OrderSchema, [404, ORDER_NOT_FOUND]),
  },
  completeOrder: moveRoute(
    "complete",
    "Complete an order: the animal is sold",
    "Completes a `placed` order, which becomes `completed`; its animal goes from `pending` to `sold`.",
  ),
  cancelOrder: moveRoute(
    "cancel",
    "Cancel an order: the animal is available again",
    "Cancels a `placed` order, which becomes `cancelled`; its animal goes from `pending` back to `available`.",
  ),
});
