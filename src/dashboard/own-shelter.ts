import { readShelterForChange, type ShelterForChange } from "../shelters/shelters.queries.ts";
import { ownRecord } from "./own-animal.ts";
import { messageResponse } from "./pages/layout.tsx";
import type { DashboardContext } from "./session.ts";

/** The shelter the path names, with its version and whether animals live there, if it is the signed-in account's. */
export const ownShelter = (c: DashboardContext): Promise<ShelterForChange | undefined> =>
  ownRecord(c, readShelterForChange);

export const shelterNotFound = (c: DashboardContext) =>
  messageResponse(c, 404, "Shelter not found", "Your account has no such shelter.", {
    href: "/dashboard/shelters",
    text: "Back to your shelters",
  });

/** Where every action on a shelter ends: its page. */
export const shelterPage = (id: number) => `/dashboard/shelters/${id}`;
