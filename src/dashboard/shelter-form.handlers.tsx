import { replyOf } from "../idempotency/idempotent-request.ts";
import { createShelter } from "../shelters/shelter-changes.queries.ts";
import { editShelter } from "../shelters/shelter-edits.ts";
import { ShelterSchema } from "../shelters/shelters.schemas.ts";
import { noticeAndRedirect } from "./account.handlers.tsx";
import { signedInAs } from "./csrf.ts";
import { FORM_KEY_FIELD, formClaim, newFormKey } from "./form-keys.ts";
import { editedVersion, reusedForm, savedText, staleEdit } from "./form-refusals.ts";
import { type FieldErrors, textOf } from "./form-values.ts";
import { accountChanger } from "./own-animal.ts";
import { ownShelter, shelterNotFound, shelterPage } from "./own-shelter.ts";
import { ShelterFormPage, type ShelterFormPageProps } from "./pages/shelter-form-page.tsx";
import type { DashboardContext } from "./session.ts";
import {
  NEW_SHELTER_VALUES,
  parseShelterForm,
  type ShelterField,
  type ShelterFormValues,
  shelterValuesOf,
} from "./shelter-form.ts";

async function renderShelterForm(
  c: DashboardContext,
  form: {
    values: ShelterFormValues;
    errors?: FieldErrors<ShelterField>;
    formError?: string;
    target: ShelterFormPageProps["target"];
  },
  status: 200 | 400 | 409 = 200,
) {
  return c.html(<ShelterFormPage {...(await signedInAs(c))} {...form} />, status);
}

export function showNewShelter(c: DashboardContext) {
  return renderShelterForm(c, { values: NEW_SHELTER_VALUES, target: { formKey: newFormKey() } });
}

/**
 * Adds the shelter through the API's own change, its form's one-time token
 * as the idempotency key, within the account's plan's cap.
 */
export async function createShelterFromForm(c: DashboardContext) {
  const form = c.get("form");
  const target = { formKey: textOf(form, FORM_KEY_FIELD) || newFormKey() };
  const parsed = parseShelterForm(form);
  if (!parsed.ok) return renderShelterForm(c, { ...parsed, target }, 400);
  const creator = { owner: accountChanger(c), now: Date.now() };
  const claim = await formClaim(c, "createShelter", parsed.shelter);
  const outcome = await createShelter(c.get("services").db, parsed.shelter, creator, claim);
  if (outcome.kind === "limitReached") {
    const formError = `Your plan holds at most ${outcome.cap} ${outcome.cap === 1 ? "shelter" : "shelters"}, and you have that many. Delete one first, or ask us about a larger plan.`;
    return renderShelterForm(c, { values: parsed.values, formError, target }, 409);
  }
  if (outcome.kind === "reused") {
    const formError = reusedForm("shelters");
    const fresh = { formKey: newFormKey() };
    return renderShelterForm(c, { values: parsed.values, formError, target: fresh }, 409);
  }
  const made = replyOf(outcome, 201, ShelterSchema);
  const text = `${made.name} is added.`;
  return noticeAndRedirect(c, { kind: "done", text }, shelterPage(made.id));
}

export async function showEditShelter(c: DashboardContext) {
  const found = await ownShelter(c);
  if (!found) return shelterNotFound(c);
  const { shelter } = found;
  return renderShelterForm(c, {
    values: shelterValuesOf(shelter),
    target: { id: shelter.id, etag: shelter.etag },
  });
}

/**
 * Changes the shelter through the API's own change, as `If-Match` the
 * version the form was drawn from: an edit of a version that has changed
 * since is refused and the form shows the shelter as it now is.
 */
export async function updateShelterFromForm(c: DashboardContext) {
  const found = await ownShelter(c);
  if (!found) return shelterNotFound(c);
  const version = editedVersion(c, "shelter");
  if ("refused" in version) return version.refused;
  const { etag, accepted } = version;
  const id = found.shelter.id;
  const parsed = parseShelterForm(c.get("form"));
  if (!parsed.ok) return renderShelterForm(c, { ...parsed, target: { id, etag } }, 400);
  const request = { id, changer: accountChanger(c), accepted };
  const outcome = await editShelter(c.get("services").db, request, parsed.shelter);
  switch (outcome.kind) {
    case "edited":
    case "unchanged": {
      const text = savedText(outcome.kind === "edited", outcome.shelter.name, "shelter");
      return noticeAndRedirect(c, { kind: "done", text }, shelterPage(id));
    }
    case "preconditionFailed": {
      const current = await ownShelter(c);
      if (!current) return shelterNotFound(c);
      const formError = staleEdit("shelter");
      const values = shelterValuesOf(current.shelter);
      const target = { id, etag: current.shelter.etag };
      return renderShelterForm(c, { values, formError, target }, 409);
    }
    default:
      return shelterNotFound(c);
  }
}
