import type { Changer } from "../catalogue/ownership.ts";
import { type PetForChange, readForChange } from "../pets/pets.queries.ts";
import { idParam } from "./own-webhook.ts";
import { messageResponse } from "./pages/layout.tsx";
import type { DashboardContext } from "./session.ts";

/** The signed-in account, as the changer of its catalogue's records. */
export const accountChanger = (c: DashboardContext): Changer => ({
  kind: "account",
  accountId: c.get("account").id,
  operatorEmail: c.get("services").config.operatorEmail,
});

/**
 * The animal the path names as a change reads it (with its version and
 * placed order), if it is the signed-in account's; another account's is not
 * found, as one that does not exist.
 */
export async function ownAnimal(c: DashboardContext): Promise<PetForChange | undefined> {
  const id = idParam(c, "id");
  if (id === undefined) return undefined;
  const found = await readForChange(c.get("services").db, {
    id,
    categoryId: undefined,
    shelterId: undefined,
    changer: accountChanger(c),
  });
  return found?.owned ? found : undefined;
}

export const animalNotFound = (c: DashboardContext) =>
  messageResponse(c, 404, "Animal not found", "Your account has no such animal.", {
    href: "/dashboard/animals",
    text: "Back to your animals",
  });

/** Where every action on an animal ends: its page. */
export const animalPage = (id: number) => `/dashboard/animals/${id}`;
