import type { Changer } from "../catalogue/ownership.ts";
import type { Database } from "../db/database.ts";
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
 * The record the path names as a change reads it, if it is the signed-in
 * account's; another account's is not found, as one that does not exist.
 */
export async function ownRecord<T extends { owned: boolean }>(
  c: DashboardContext,
  read: (db: Database, id: number, changer: Changer) => Promise<T | undefined>,
): Promise<T | undefined> {
  const id = idParam(c, "id");
  if (id === undefined) return undefined;
  const found = await read(c.get("services").db, id, accountChanger(c));
  return found?.owned ? found : undefined;
}

/** The animal the path names, with its version and placed order, if it is the signed-in account's. */
export const ownAnimal = (c: DashboardContext): Promise<PetForChange | undefined> =>
  ownRecord(c, (db, id, changer) =>
    readForChange(db, { id, categoryId: undefined, shelterId: undefined, changer }),
  );

export const animalNotFound = (c: DashboardContext) =>
  messageResponse(c, 404, "Animal not found", "Your account has no such animal.", {
    href: "/dashboard/animals",
    text: "Back to your animals",
  });

/** Where every action on an animal ends: its page. */
export const animalPage = (id: number) => `/dashboard/animals/${id}`;
