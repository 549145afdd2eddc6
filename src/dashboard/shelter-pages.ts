import type { Hono } from "hono";
import { recordPages, type SignedIn } from "./record-pages.ts";
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

/** The account's shelters, below /dashboard/shelters. */
export function shelterPages(signedIn: SignedIn): Hono<DashboardEnv> {
  return recordPages(signedIn, {
    list: listShelterPages,
    showNew: showNewShelter,
    create: createShelterFromForm,
    show: showShelter,
    update: updateShelterFromForm,
    showEdit: showEditShelter,
    confirmDelete: confirmDeleteShelter,
    delete: deleteShelterFromForm,
  });
}
