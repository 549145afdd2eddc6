import { listCategories } from "../categories/categories.queries.ts";
import { replyOf } from "../idempotency/idempotent-request.ts";
import { createPet } from "../pets/pet-changes.queries.ts";
import { editPet } from "../pets/pet-edits.ts";
import { type NewPet, type Pet, PetSchema } from "../pets/pets.schemas.ts";
import { listAccountShelters } from "../shelters/account-shelters.queries.ts";
import { noticeAndRedirect } from "./account.handlers.tsx";
import {
  type AnimalField,
  type AnimalFormValues,
  animalValuesOf,
  NEW_ANIMAL_VALUES,
  parseAnimalForm,
} from "./animal-form.ts";
import { signedInAs } from "./csrf.ts";
import { FORM_KEY_FIELD, formClaim, newFormKey } from "./form-keys.ts";
import { editedVersion, reusedForm, savedText, staleEdit } from "./form-refusals.ts";
import { type FieldErrors, textOf } from "./form-values.ts";
import { accountChanger, animalNotFound, animalPage, ownAnimal } from "./own-animal.ts";
import { AnimalFormPage, type AnimalFormPageProps } from "./pages/animal-form-page.tsx";
import type { DashboardContext } from "./session.ts";

/** The categories an animal may be put in, for the form's select (the first hundred, by id). */
async function categoryChoices(c: DashboardContext) {
  const page = await listCategories(c.get("services").db, { limit: 100, afterId: 0 });
  return page.categories;
}

async function renderAnimalForm(
  c: DashboardContext,
  form: {
    values: AnimalFormValues;
    errors?: FieldErrors<AnimalField>;
    formError?: string;
    target: AnimalFormPageProps["target"];
  },
  status: 200 | 400 | 409 | 422 = 200,
) {
  const [signedIn, categories, shelters] = await Promise.all([
    signedInAs(c),
    categoryChoices(c),
    listAccountShelters(c.get("services").db, c.get("account").id),
  ]);
  const page = (
    <AnimalFormPage {...signedIn} categories={categories} shelters={shelters} {...form} />
  );
  return c.html(page, status);
}

/** Whether the animal already is what the form asks for. */
function sameAnimal(pet: Pet, asked: NewPet): boolean {
  const now = parseAnimalForm(animalValuesOf(pet));
  return now.ok && JSON.stringify(now.pet) === JSON.stringify(asked);
}

/** The shelter is gone, or is not the account's (the animal was already found to be its own). */
const unknownShelter = {
  shelterId: ["That shelter is not one of yours: choose another, or none."],
};

const unknownCategory = { categoryId: ["That category no longer exists: choose another."] };

export function showNewAnimal(c: DashboardContext) {
  return renderAnimalForm(c, { values: NEW_ANIMAL_VALUES, target: { formKey: newFormKey() } });
}

/**
 * Adds the animal through the API's own change, its form's one-time token
 * as the idempotency key: a second submit of the same form makes nothing
 * and leads to the animal the first one made.
 */
export async function createAnimal(c: DashboardContext) {
  const form = c.get("form");
  // A refused form keeps its token: nothing was made with it.
  const target = { formKey: textOf(form, FORM_KEY_FIELD) || newFormKey() };
  const parsed = parseAnimalForm(form);
  if (!parsed.ok) return renderAnimalForm(c, { ...parsed, target }, 400);
  const creator = { owner: accountChanger(c), now: Date.now() };
  const claim = await formClaim(c, "createPet", parsed.pet);
  const outcome = await createPet(c.get("services").db, parsed.pet, creator, claim);
  if (outcome.kind === "unknownCategory") {
    return renderAnimalForm(c, { values: parsed.values, errors: unknownCategory, target }, 422);
  }
  if (outcome.kind === "unknownShelter" || outcome.kind === "notOwner") {
    return renderAnimalForm(c, { values: parsed.values, errors: unknownShelter, target }, 422);
  }
  if (outcome.kind === "reused") {
    const formError = reusedForm("animals");
    return renderAnimalForm(
      c,
      { values: parsed.values, formError, target: { formKey: newFormKey() } },
      409,
    );
  }
  const made = replyOf(outcome, 201, PetSchema);
  const text = `${made.name} is added: adopters can find it from now on.`;
  return noticeAndRedirect(c, { kind: "done", text }, animalPage(made.id));
}

export async function showEditAnimal(c: DashboardContext) {
  const animal = await ownAnimal(c);
  if (!animal) return animalNotFound(c);
  const { pet } = animal;
  return renderAnimalForm(c, {
    values: animalValuesOf(pet),
    target: { id: pet.id, etag: pet.etag },
  });
}

/**
 * Changes the animal through the API's own change, as `If-Match` the
 * version the form was drawn from: an edit of a version that has changed
 * since is refused and the form shows the animal as it now is.
 */
export async function updateAnimal(c: DashboardContext) {
  const animal = await ownAnimal(c);
  if (!animal) return animalNotFound(c);
  const version = editedVersion(c, "animal");
  if ("refused" in version) return version.refused;
  const { etag, accepted } = version;
  const id = animal.pet.id;
  const parsed = parseAnimalForm(c.get("form"));
  if (!parsed.ok) return renderAnimalForm(c, { ...parsed, target: { id, etag } }, 400);
  const request = { id, changer: accountChanger(c), accepted };
  const outcome = await editPet(c.get("services").db, request, parsed.pet);
  switch (outcome.kind) {
    case "edited":
    case "unchanged": {
      const text = savedText(outcome.kind === "edited", outcome.pet.name, "animal");
      return noticeAndRedirect(c, { kind: "done", text }, animalPage(id));
    }
    case "preconditionFailed": {
      const current = await ownAnimal(c);
      if (!current) return animalNotFound(c);
      // A second submit of a form that was saved: the animal is as it asks, so nothing is lost.
      if (sameAnimal(current.pet, parsed.pet)) {
        const text = `${current.pet.name} is saved.`;
        return noticeAndRedirect(c, { kind: "done", text }, animalPage(id));
      }
      const formError = staleEdit("animal");
      return renderAnimalForm(
        c,
        { values: animalValuesOf(current.pet), formError, target: { id, etag: current.pet.etag } },
        409,
      );
    }
    case "orderOpen": {
      const errors = {
        status: [
          `Order ${outcome.orderId} is placed for this animal: its status cannot change until that order is completed or cancelled.`,
        ],
      };
      return renderAnimalForm(c, { values: parsed.values, errors, target: { id, etag } }, 409);
    }
    // The animal is the account's (an animal never changes hands), so the shelter is another's.
    case "notOwner":
    case "unknownShelter":
      return renderAnimalForm(
        c,
        { values: parsed.values, errors: unknownShelter, target: { id, etag } },
        422,
      );
    case "unknownCategory":
      return renderAnimalForm(
        c,
        { values: parsed.values, errors: unknownCategory, target: { id, etag } },
        422,
      );
    case "notFound":
      return animalNotFound(c);
  }
}
