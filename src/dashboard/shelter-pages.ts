import { Hono, type MiddlewareHandler } from "hono";
import type { DashboardEnv } from "./session.ts";
import {
  createShelterFromForm,
  showEditShelter,
  showNewShelter,
  updateShelterFromForm,
} from "./shelter-form.handlers.tsx";
import {
  confirmDeleteShelter,
  deleteShelterFromForm,
  listShelterPages,
  showShelter,
} from "./shelter-page.handlers.tsx";

/**
 * The account's shelters, below /dashboard/shelters: every page needs a
 * session, every post (`signedIn`) its CSRF token too.
 */
export function shelterPages(
  signedIn: readonly [MiddlewareHandler<DashboardEnv>, MiddlewareHandler<DashboardEnv>],
): Hono<DashboardEnv> {
  const shelters = new Hono<DashboardEnv>();
  const [session] = signedIn;
  shelters.get("/", session, listShelterPages);
  shelters.get("/new", session, showNewShelter);
  shelters.post("/", ...signedIn, createShelterFromForm);
  shelters.get("/:id", session, showShelter);
  shelters.post("/:id", ...signedIn, updateShelterFromForm);
  shelters.get("/:id/edit", session, showEditShelter);
  shelters.get("/:id/delete", session, confirmDeleteShelter);
  shelters.post("/:id/delete", ...signedIn, deleteShelterFromForm);
  return shelters;
}
