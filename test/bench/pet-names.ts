/**
 * The names the bench gives its animals, in the default run's seeding and
 * in the scale run's grown tables alike: a given name and the animal's
 * number, as "Luna 21". Free of any runtime's types: the Node bench and
 * the Worker tests both read it.
 */

/**
 * One given name in twenty each, by number: a search for one finds 5% of
 * the animals at any table size. None begins another, nor any other word of
 * a name, so a search for one, read as a prefix, finds that name only.
 */
export const GIVEN_NAMES = [
  "Bella",
  "Luna",
  "Charlie",
  "Lucy",
  "Cooper",
  "Daisy",
  "Milo",
  "Bailey",
  "Rocky",
  "Sadie",
  "Teddy",
  "Molly",
  "Buddy",
  "Stella",
  "Tucker",
  "Penny",
  "Oliver",
  "Rosie",
  "Jasper",
  "Ziggy",
] as const;

/** The name of the bench's `index`th animal. */
export function petName(index: number): string {
  return `${GIVEN_NAMES[index % GIVEN_NAMES.length]} ${index}`;
}

/**
 * The given name a search row looks for: not the first, which every create
 * row's animal has (each creates the animal of index 0), so what it finds
 * does not grow as a run adds animals.
 */
export const SEARCHED_NAME = "Luna";
