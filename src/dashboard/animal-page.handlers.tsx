import { findCategory } from "../categories/categories.queries.ts";
import { removePet } from "../pets/pet-edits.ts";
import type { PetForChange } from "../pets/pets.queries.ts";
import { listPhotos } from "../photos/pet-photos.queries.ts";
import { findShelter } from "../shelters/shelters.queries.ts";
import { noticeAndRedirect } from "./account.handlers.tsx";
import { signedInAs } from "./csrf.ts";
import { newFormKey } from "./form-keys.ts";
import { deletionRequest, staleDeletion } from "./form-refusals.ts";
import { takeNotices } from "./notices.ts";
import { animalNotFound, ownAnimal } from "./own-animal.ts";
import { AnimalPage, type AnimalView, DeleteAnimalPage } from "./pages/animal-page.tsx";
import type { DashboardContext } from "./session.ts";

/** What the animal's pages show of it, its category named. */
async function viewOf(c: DashboardContext, animal: PetForChange): Promise<AnimalView> {
  const { db } = c.get("services");
  const { pet } = animal;
  const [category, shelter] = await Promise.all([
    findCategory(db, pet.categoryId),
    pet.shelterId === null ? undefined : findShelter(db, pet.shelterId),
  ]);
  return {
    pet,
    categoryName: category?.name,
    shelterName: shelter?.name,
    placedOrder: animal.placedOrder,
  };
}

/**
 * The animal's page. A refused upload re-renders it with the reason and
 * its status; otherwise it takes the session's notices, last.
 */
export async function renderAnimal(
  c: DashboardContext,
  animal: PetForChange,
  refused?: { status: 400 | 409 | 413 | 415; reason: string },
) {
  const [view, photos, signedIn] = await Promise.all([
    viewOf(c, animal),
    listPhotos(c.get("services").db, animal.pet.id),
    signedInAs(c),
  ]);
  const notices = refused ? [] : await takeNotices(c.get("services").db, c.get("session"));
  const page = (
    <AnimalPage
      {...signedIn}
      animal={view}
      notices={notices}
      photos={photos ?? []}
      formKey={newFormKey()}
      uploadError={refused?.reason}
    />
  );
  return c.html(page, refused?.status ?? 200);
}

export async function showAnimal(c: DashboardContext) {
  const animal = await ownAnimal(c);
  return animal ? renderAnimal(c, animal) : animalNotFound(c);
}

/** The confirmation, or, when the deletion was refused, the confirmation again with the reason and a 409. */
async function renderDeleteAnimal(c: DashboardContext, animal: PetForChange, refusal?: string) {
  const signedIn = await signedInAs(c);
  const view = await viewOf(c, animal);
  const page = <DeleteAnimalPage {...signedIn} animal={view} error={refusal} />;
  return c.html(page, refusal ? 409 : 200);
}

/** Asks before deleting: the page's form is the only thing that posts the deletion. */
export async function confirmDeleteAnimal(c: DashboardContext) {
  const animal = await ownAnimal(c);
  return animal ? renderDeleteAnimal(c, animal) : animalNotFound(c);
}

/**
 * Deletes the animal through the API's own change, if it is still the
 * version the confirmation showed and no order is placed for it; its
 * photos go with it, as after the API's deletion.
 */
export async function deleteAnimal(c: DashboardContext) {
  const animal = await ownAnimal(c);
  if (!animal) return animalNotFound(c);
  const request = deletionRequest(c, animal.pet.id);
  const services = c.get("services");
  const outcome = await removePet(services.db, request, Date.now());
  switch (outcome.kind) {
    case "deleted": {
      const text = `${animal.pet.name} is deleted, with its photos.`;
      return noticeAndRedirect(c, { kind: "done", text }, "/dashboard/animals");
    }
    case "orderOpen": {
      const refusal = `Order ${outcome.orderId} is placed for ${animal.pet.name}, so it cannot be deleted until that order is completed or cancelled.`;
      return renderDeleteAnimal(c, animal, refusal);
    }
    case "preconditionFailed": {
      const current = await ownAnimal(c);
      const refusal = staleDeletion("animal");
      return current ? renderDeleteAnimal(c, current, refusal) : animalNotFound(c);
    }
    default:
      return animalNotFound(c);
  }
}
