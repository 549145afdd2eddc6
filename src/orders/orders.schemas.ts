import { z } from "@hono/zod-openapi";
import { IdentifierSchema, idParams } from "../api/identifiers.ts";
import { statusPageQuery } from "../api/pagination.ts";
import { ORDER_STATUSES } from "../db/schema.ts";

/** What a request for an order that is not the caller's to see is told, whatever the reason. */
export const ORDER_NOT_FOUND = "This account has no order with this identifier.";

const OrderStatusSchema = z.enum(ORDER_STATUSES).openapi("OrderStatus", {
  description:
    "`placed` until the order is completed (the animal is sold) or cancelled (the animal is available again).",
  example: "placed",
});
export type OrderStatus = z.infer<typeof OrderStatusSchema>;

export const NewOrderSchema = z
  .strictObject({
    petId: IdentifierSchema.openapi({
      description: "The animal to adopt; it must be `available`.",
      example: 42,
    }),
  })
  .openapi("NewOrder", { example: { petId: 42 } });

const instant = (description: string) =>
  z.iso.datetime().openapi({ description, example: "2026-05-04T12:30:00.000Z" });

export const OrderSchema = z
  .object({
    id: IdentifierSchema.openapi({
      description: "Assigned by the service when the order is placed.",
      example: 7,
    }),
    petId: IdentifierSchema.openapi({ description: "The animal ordered.", example: 42 }),
    status: OrderStatusSchema,
    createdAt: instant("When the order was placed (RFC 3339, UTC)."),
    updatedAt: instant("When the order last changed status (RFC 3339, UTC)."),
  })
  .openapi("Order", {
    example: {
      id: 7,
      petId: 42,
      status: "placed",
      createdAt: "2026-05-04T12:30:00.000Z",
      updatedAt: "2026-05-04T12:30:00.000Z",
    },
  });
export type Order = z.infer<typeof OrderSchema>;

export const OrdersSchema = z.array(OrderSchema).openapi("Orders", {
  description: "A page of orders, as a bare array.",
  example: [
    {
      id: 7,
      petId: 42,
      status: "completed",
      createdAt: "2026-05-04T12:30:00.000Z",
      updatedAt: "2026-05-04T12:41:07.250Z",
    },
    {
      id: 8,
      petId: 43,
      status: "placed",
      createdAt: "2026-05-04T12:35:10.000Z",
      updatedAt: "2026-05-04T12:35:10.000Z",
    },
  ],
});

export const ListOrdersQuerySchema = statusPageQuery("orders", OrderStatusSchema);

export const OrderIdParamsSchema = idParams("orderId", 7);
