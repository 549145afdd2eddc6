import { readShelterForChange, type ShelterForChange } from "../shelters/shelters.queries.ts";
import { accountChanger } from "./own-animal.ts";
import { idParam } from "./own-webhook.ts";
import { messageResponse } from "./pages/layout.tsx";
import type { DashboardContext } from "./session.ts";

/**
 * The shelter the path names as a change reads it (with its version, and
 * whether animals live there), if it is the signed-in account's; another
 * account's is not found, as one that does not exist.
 */
export async function ownShelter(c: DashboardContext): Promise<ShelterForChange | undefined> {
  const id = idParam(c, "id");
  if (id === undefined) return undefined;
  const found = await readShelterForChange(c.get("services").db, id, accountChanger(c));
  return found?.owned ? found : undefined;
}

export const shelterNotFound = (c: DashboardContext) =>
  messageResponse(c, 404, "Shelter not found", "Your account has no such shelter.", {
    href: "/dashboard/shelters",
    text: "Back to your shelters",
  });

/** Where every action on a shelter ends: its page. */
export const shelterPage = (id: number) => `/dashboard/shelters/${id}`;
