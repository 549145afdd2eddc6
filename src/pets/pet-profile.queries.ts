import { and, eq, isNull, type SQL, sql } from "drizzle-orm";
import { callersAccount } from "../catalogue/ownership.ts";
import { pets } from "../db/schema.ts";
import { shelters } from "../db/shelters-table.ts";
import { type PetProfile, PROFILE_FIELDS } from "./pet-profile.schemas.ts";

/**
 * How a change writes an animal's profile. An insert binds each field by
 * its own name. An update binds the fields it sets as one JSON object,
 * `profile`, so one statement serves any set of fields: a member present
 * sets its column (JSON `null` clears it), an absent member keeps what the
 * column holds.
 */

const profile = sql.placeholder("profile");
const shelterId = sql.placeholder("shelterId");

/** The member of the bound profile for this field: JSON null and absence both read as SQL NULL. */
function member(field: keyof PetProfile): SQL {
  return sql`json_extract(${profile}, ${sql.raw(`'$.${field}'`)})`;
}

/** The profile's columns as an insert writes them: each field's placeholder, bound by `insertedProfileValues`. */
export function insertedProfile() {
  return Object.fromEntries(
    PROFILE_FIELDS.map((field) => [field, sql`${sql.placeholder(field)}`.as(pets[field].name)]),
  ) as { [K in keyof PetProfile]: SQL.Aliased<PetProfile[K]> };
}

/** What an insert binds for the profile: each field sent, null for the rest. */
export function insertedProfileValues(sent: Partial<PetProfile>): PetProfile {
  return Object.fromEntries(
    PROFILE_FIELDS.map((field) => [field, sent[field] ?? null]),
  ) as PetProfile;
}

/** The profile's columns as an update sets them: the members sent, the others as they are. */
export function updatedProfile() {
  return Object.fromEntries(
    PROFILE_FIELDS.map((field) => [
      field,
      sql`CASE WHEN json_type(${profile}, ${sql.raw(`'$.${field}'`)}) IS NULL THEN ${pets[field]} ELSE ${member(field)} END`,
    ]),
  );
}

/** The bound profile: the fields a change sets, `null` for those it clears. */
export function profileValue(fields: Partial<PetProfile>): string {
  return JSON.stringify(fields);
}

/** The live shelter bound as `shelterId`. */
const knownShelter = and(eq(shelters.id, shelterId), isNull(shelters.deletedAt));

/**
 * True when a change names no shelter (binds null), or a live one of the
 * caller's account: an animal's change writes only then.
 */
export const shelterNoneOrOwned = sql<boolean>`(${shelterId} IS NULL OR EXISTS (SELECT 1 FROM ${shelters} WHERE ${knownShelter} AND ${shelters.accountId} = ${callersAccount}))`;

/** What the shelter a change names is to the caller: null when it names none. */
export type ShelterStanding = "owned" | "another account's" | "unknown";

/** The shelter bound as `shelterId` as the caller stands to it; null when none is bound. */
export const shelterStanding = sql<ShelterStanding | null>`(CASE WHEN ${shelterId} IS NULL THEN NULL ELSE coalesce((SELECT CASE WHEN ${shelters.accountId} = ${callersAccount} THEN 'owned' ELSE 'another account''s' END FROM ${shelters} WHERE ${knownShelter}), 'unknown') END)`;
