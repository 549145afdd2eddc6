import { categoryRoutes } from "../categories/categories.routes.ts";
import { eventRoutes } from "../events/events.routes.ts";
import { orderRoutes } from "../orders/orders.routes.ts";
import { petRoutes } from "../pets/pets.routes.ts";
import { petPhotoRoutes } from "../photos/photos.routes.ts";
import { shelterRoutes } from "../shelters/shelters.routes.ts";
import type { WebhookUrlPolicy } from "../webhook-urls/webhook-url.ts";
import { webhookRoutes } from "../webhooks/webhooks.routes.ts";

/**
 * Every `/v1` route table, by resource, in the order the document lists
 * them. The webhook bodies state the URL rules of the environment (`policy`).
 */
export function v1Routes(policy: WebhookUrlPolicy) {
  return {
    pets: petRoutes,
    petPhotos: petPhotoRoutes,
    categories: categoryRoutes,
    shelters: shelterRoutes,
    orders: orderRoutes,
    events: eventRoutes,
    webhooks: webhookRoutes(policy),
  };
}
