import { CITY_PLACES, type CityPlace } from "./city-places.ts";

/**
 * The shelters the bench makes with SQL before its servers start, each in
 * one of the cities of city-places.ts, a few kilometres off its centre.
 * Free of any runtime's types: the Node bench and the Worker tests both
 * read it.
 */

/** Enterprise's cap: the scale run's shelters are spread over accounts holding this many each. */
export const SHELTERS_PER_ACCOUNT = 500;

/** Shelters the default run gives the shopper: a page of 20, and a next page. */
export const BENCH_SHELTERS = 25;

/** The place of the shelter with this id: its city, and up to 0.1° either way off its centre. */
export function shelterPlace(id: number) {
  const place = CITY_PLACES[(id - 1) % CITY_PLACES.length];
  if (!place) throw new Error("no cities to place shelters in");
  return {
    ...place,
    latitude: place.latitude + (((id * 7) % 21) - 10) / 100,
    longitude: place.longitude + (((id * 11) % 21) - 10) / 100,
  };
}

const quoted = (text: string) => `'${text.replaceAll("'", "''")}'`;

/** The cities as rows of a CTE, numbered from 0. */
const citiesTable = () =>
  CITY_PLACES.map(
    ({ city, country, latitude, longitude }, k) =>
      `(${k}, ${quoted(city)}, '${country}', ${latitude}, ${longitude})`,
  ).join(",\n");

/**
 * SQL adding the shelters with ids `first` to `last`, each owned by the
 * account the SQL expression `owner` names for its id `j`, placed as
 * `shelterPlace` says, named after its city and number ("Lyon shelter
 * 94"), and in the names' search index and the places' R*Tree as a
 * create leaves it; three statements. The ids must be free: they are
 * given, so animals made in the same script can name them.
 */
export function sheltersSql(first: number, last: number, owner: string): string {
  const jitter = (multiplier: number) => `(((j * ${multiplier}) % 21) - 10) / 100.0`;
  return `WITH RECURSIVE n(j) AS (SELECT ${first} UNION ALL SELECT j + 1 FROM n WHERE j < ${last}),
cities(k, city, country, latitude, longitude) AS (VALUES
${citiesTable()})
INSERT INTO shelters (id, account_id, name, email, street, city, country, latitude, longitude, version, created_at)
SELECT j, ${owner}, city || ' shelter ' || j, 'shelter-' || j || '@petstore.invalid', j || ' Harbour Road',
  city, country, latitude + ${jitter(7)}, longitude + ${jitter(11)}, 1, 0
FROM n JOIN cities ON k = (j - 1) % ${CITY_PLACES.length};
INSERT INTO shelter_search (rowid, name) SELECT id, name FROM shelters WHERE id BETWEEN ${first} AND ${last};
INSERT INTO shelter_places (id, min_lat, max_lat, min_lon, max_lon, latitude, longitude)
SELECT id, latitude, latitude, longitude, longitude, latitude, longitude FROM shelters WHERE id BETWEEN ${first} AND ${last};`;
}

/** The email of the account that holds the scale run's shelters from `SHELTERS_PER_ACCOUNT * k + 1` on. */
const holderEmail = (k: string) => `'bench-shelters-' || ${k} || '@petstore.invalid'`;

/**
 * SQL adding `count` shelters with ids 1 on, for the scale run: Enterprise
 * accounts of their own hold them, as many as the plan allows each, as a
 * real catalogue's would be held.
 */
export function scaleSheltersSql(count: number): string {
  const accounts = Math.ceil(count / SHELTERS_PER_ACCOUNT);
  const holders = `WITH RECURSIVE a(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM a WHERE k < ${accounts - 1})
INSERT INTO accounts (email, password_hash, plan, per_minute, per_day, created_at)
SELECT ${holderEmail("k")}, '', 'enterprise', 60, 1000, 0 FROM a;`;
  const owner = `(SELECT id FROM accounts WHERE email = ${holderEmail(`((j - 1) / ${SHELTERS_PER_ACCOUNT})`)})`;
  return `${holders}\n${sheltersSql(1, count, owner)}`;
}

/**
 * SQL moving every shelter to `place`, each up to 0.1° either way off its
 * centre as `shelterPlace` spreads them, in the places' R*Tree too: for a
 * table of a few shelters whose page near that place must find them all.
 * Their names keep their first cities.
 */
export function gatherSheltersSql({ city, country, latitude, longitude }: CityPlace): string {
  const jitter = (multiplier: number) => `(((id * ${multiplier}) % 21) - 10) / 100.0`;
  return `UPDATE shelters SET city = ${quoted(city)}, country = '${country}',
  latitude = ${latitude} + ${jitter(7)}, longitude = ${longitude} + ${jitter(11)};
UPDATE shelter_places SET
  min_lat = (SELECT latitude FROM shelters WHERE shelters.id = shelter_places.id),
  max_lat = (SELECT latitude FROM shelters WHERE shelters.id = shelter_places.id),
  min_lon = (SELECT longitude FROM shelters WHERE shelters.id = shelter_places.id),
  max_lon = (SELECT longitude FROM shelters WHERE shelters.id = shelter_places.id),
  latitude = (SELECT latitude FROM shelters WHERE shelters.id = shelter_places.id),
  longitude = (SELECT longitude FROM shelters WHERE shelters.id = shelter_places.id);`;
}
