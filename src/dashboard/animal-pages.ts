import { Hono, type MiddlewareHandler } from "hono";
import {
  createAnimal,
  showEditAnimal,
  showNewAnimal,
  updateAnimal,
} from "./animal-form.handlers.tsx";
import { listAnimals } from "./animal-list.handlers.tsx";
import { confirmDeleteAnimal, deleteAnimal, showAnimal } from "./animal-page.handlers.tsx";
import {
  confirmRemovePhoto,
  refuseOversizedUpload,
  removePhoto,
  uploadPhoto,
} from "./animal-photos.handlers.tsx";
import type { DashboardEnv } from "./session.ts";

/**
 * The account's animals, below /dashboard/animals: every page needs a
 * session, every post (`signedIn`) its CSRF token too. An upload too large
 * to read is refused before its token is looked for, since it changes nothing.
 */
export function animalPages(
  signedIn: readonly [MiddlewareHandler<DashboardEnv>, MiddlewareHandler<DashboardEnv>],
): Hono<DashboardEnv> {
  const animals = new Hono<DashboardEnv>();
  const [session, formToken] = signedIn;
  animals.get("/", session, listAnimals);
  animals.get("/new", session, showNewAnimal);
  animals.post("/", ...signedIn, createAnimal);
  animals.get("/:id", session, showAnimal);
  animals.post("/:id", ...signedIn, updateAnimal);
  animals.get("/:id/edit", session, showEditAnimal);
  animals.get("/:id/delete", session, confirmDeleteAnimal);
  animals.post("/:id/delete", ...signedIn, deleteAnimal);
  animals.post("/:id/photos", session, refuseOversizedUpload(), formToken, uploadPhoto);
  animals.get("/:id/photos/:photoId/delete", session, confirmRemovePhoto);
  animals.post("/:id/photos/:photoId/delete", ...signedIn, removePhoto);
  return animals;
}
