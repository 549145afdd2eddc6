import type { Hono } from "hono";
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
import { recordPages, type SignedIn } from "./record-pages.ts";
import type { DashboardEnv } from "./session.ts";

/**
 * The account's animals, below /dashboard/animals, with their photos. An
 * upload too large to read is refused before its token is looked for, since
 * it changes nothing.
 */
export function animalPages(signedIn: SignedIn): Hono<DashboardEnv> {
  const animals = recordPages(signedIn, {
    list: listAnimals,
    showNew: showNewAnimal,
    create: createAnimal,
    show: showAnimal,
    update: updateAnimal,
    showEdit: showEditAnimal,
    confirmDelete: confirmDeleteAnimal,
    delete: deleteAnimal,
  });
  const [session, formToken] = signedIn;
  animals.post("/:id/photos", session, refuseOversizedUpload(), formToken, uploadPhoto);
  animals.get("/:id/photos/:photoId/delete", session, confirmRemovePhoto);
  animals.post("/:id/photos/:photoId/delete", ...signedIn, removePhoto);
  return animals;
}
