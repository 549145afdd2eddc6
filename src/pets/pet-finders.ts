import type { z } from "@hono/zod-openapi";
import { prefixQuery } from "../api/search-words.ts";
import { boundList } from "../db/database.ts";
import type { PetAge, PetSex, PetSize, YesNoField } from "./pet-profile.schemas.ts";
import type { ListPetsQuerySchema, PetStatus } from "./pets.schemas.ts";

/**
 * The filters of a listing of animals, and the values its statements bind
 * for them: a list as a JSON array, a yes/no as 1 or 0, null for a filter
 * not given. The words of `q` and of `breed` meet in one FTS5 query, each
 * held to its column of the search index.
 */

/** The most search index (or live index) entries one page examines when no index serves its filters whole. */
export const SEARCH_WINDOW = 10_000;

/** What a listing of animals is narrowed by. */
export interface PetFinders {
  statuses?: readonly PetStatus[] | undefined;
  categoryIds?: readonly number[] | undefined;
  ids?: readonly number[] | undefined;
  /** The FTS5 query made of `q`'s words; undefined when there is none. */
  words?: string | undefined;
  shelterIds?: readonly number[] | undefined;
  /** The FTS5 query of each `breed` value's words. */
  breeds?: readonly string[] | undefined;
  ages?: readonly PetAge[] | undefined;
  sizes?: readonly PetSize[] | undefined;
  sex?: PetSex | undefined;
  yesNo?: Partial<Record<YesNoField, boolean>> | undefined;
  /** Only this account's animals (the dashboard's list of an account's own). */
  accountId?: number | undefined;
}

/** The search index's query: `q`'s words in names, and any `breed`'s words in breeds. */
function searchOf({ words, breeds }: PetFinders): string | null {
  if (words === undefined && breeds === undefined) return null;
  const parts = [
    words === undefined ? undefined : `name : (${words})`,
    breeds === undefined
      ? undefined
      : `breed : (${breeds.map((each) => `(${each})`).join(" OR ")})`,
  ].filter((part) => part !== undefined);
  return parts.length === 0 ? null : parts.join(" AND ");
}

/** The finders a listing's query names, as its schema read them (its paging aside). */
export function findersOf(query: z.output<typeof ListPetsQuerySchema>): PetFinders {
  const { limit, direction, cursor, near, within, sort, status, categoryId, id, q, ...profile } =
    query;
  const { shelterId, breed, age, size, sex, ...yesNo } = profile;
  return {
    statuses: status,
    categoryIds: categoryId,
    ids: id,
    words: q === undefined ? undefined : prefixQuery(q),
    shelterIds: shelterId,
    breeds: breed?.map((value) => prefixQuery(value) ?? ""),
    ages: age,
    sizes: size,
    sex,
    yesNo,
  };
}

const bit = (value: boolean | undefined) => (value === undefined ? null : value ? 1 : 0);

/** What a listing's statements bind for its filters. */
export function valuesOf(finders: PetFinders) {
  const yesNo = finders.yesNo ?? {};
  return {
    ids: boundList(finders.ids),
    search: searchOf(finders),
    statuses: boundList(finders.statuses),
    categoryIds: boundList(finders.categoryIds),
    shelterIds: boundList(finders.shelterIds),
    ages: boundList(finders.ages),
    sizes: boundList(finders.sizes),
    sex: finders.sex ?? null,
    goodWithChildren: bit(yesNo.goodWithChildren),
    goodWithDogs: bit(yesNo.goodWithDogs),
    goodWithCats: bit(yesNo.goodWithCats),
    houseTrained: bit(yesNo.houseTrained),
    specialNeeds: bit(yesNo.specialNeeds),
    spayedNeutered: bit(yesNo.spayedNeutered),
    accountId: finders.accountId ?? null,
  };
}

export type PetFinderValues = ReturnType<typeof valuesOf>;
