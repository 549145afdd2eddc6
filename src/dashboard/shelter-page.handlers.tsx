import { listAccountShelters } from "../shelters/account-shelters.queries.ts";
import { removeShelter } from "../shelters/shelter-edits.ts";
import type { ShelterForChange } from "../shelters/shelters.queries.ts";
import { noticeAndRedirect } from "./account.handlers.tsx";
import { signedInAs } from "./csrf.ts";
import { deletionRequest, staleDeletion } from "./form-refusals.ts";
import { takeNotices } from "./notices.ts";
import { ownShelter, shelterNotFound } from "./own-shelter.ts";
import { DeleteShelterPage, ShelterListPage, ShelterPage } from "./pages/shelter-pages.tsx";
import type { DashboardContext } from "./session.ts";

/** The account's shelters (a plan caps how many it has, so one page holds them all). */
export async function listShelterPages(c: DashboardContext) {
  const { db } = c.get("services");
  const [shelters, signedIn] = await Promise.all([
    listAccountShelters(db, c.get("account").id),
    signedInAs(c),
  ]);
  const notices = await takeNotices(db, c.get("session"));
  return c.html(<ShelterListPage {...signedIn} shelters={shelters} notices={notices} />);
}

export async function showShelter(c: DashboardContext) {
  const found = await ownShelter(c);
  if (!found) return shelterNotFound(c);
  const signedIn = await signedInAs(c);
  const notices = await takeNotices(c.get("services").db, c.get("session"));
  return c.html(<ShelterPage {...signedIn} shelter={found.shelter} notices={notices} />);
}

/** The confirmation, or, when the deletion was refused, the confirmation again with the reason and a 409. */
async function renderDeleteShelter(c: DashboardContext, found: ShelterForChange, refusal?: string) {
  const signedIn = await signedInAs(c);
  const page = <DeleteShelterPage {...signedIn} shelter={found.shelter} error={refusal} />;
  return c.html(page, refusal ? 409 : 200);
}

/** Asks before deleting: the page's form is the only thing that posts the deletion. */
export async function confirmDeleteShelter(c: DashboardContext) {
  const found = await ownShelter(c);
  return found ? renderDeleteShelter(c, found) : shelterNotFound(c);
}

/** Deletes the shelter through the API's own change, if it is the version shown and no animal lives there. */
export async function deleteShelterFromForm(c: DashboardContext) {
  const found = await ownShelter(c);
  if (!found) return shelterNotFound(c);
  const request = deletionRequest(c, found.shelter.id);
  const outcome = await removeShelter(c.get("services").db, request, Date.now());
  switch (outcome.kind) {
    case "deleted": {
      const text = `${found.shelter.name} is deleted.`;
      return noticeAndRedirect(c, { kind: "done", text }, "/dashboard/shelters");
    }
    case "inUse":
      return renderDeleteShelter(
        c,
        found,
        `Animals live at ${found.shelter.name}, so it cannot be deleted: move them to another shelter or delete them first.`,
      );
    case "preconditionFailed": {
      const current = await ownShelter(c);
      const refusal = staleDeletion("shelter");
      return current ? renderDeleteShelter(c, current, refusal) : shelterNotFound(c);
    }
    default:
      return shelterNotFound(c);
  }
}
