import type { PetAge, PetSex, PetSize, YesNoField } from "../../src/pets/pet-profile.schemas.ts";

/**
 * The profiles of the animals the bench makes with SQL (the default run's
 * animals to order, the scale run's grown tables), drawn from each
 * animal's id so that every profile filter finds a known share at any
 * size. Free of any runtime's types: the Node bench and the Worker tests
 * both read it.
 *
 * Each field follows a cycle: the animal with id `i` takes `cycle[i % length]`.
 * The cycles' lengths are pairwise coprime, so the fields vary independently:
 * a filter alone finds its value's share of the cycle, and two filters
 * together the product of their shares, over whole periods.
 */

/** Thirteen breeds; no word of one begins a word of another, so `breed` finds one only. */
export const BREEDS = [
  "Labrador Retriever",
  "German Shepherd",
  "Beagle",
  "Dachshund",
  "Border Collie",
  "Siamese",
  "Maine Coon",
  "Persian",
  "Poodle",
  "Bengal",
  "Ragdoll",
  "Husky",
  "Whippet",
] as const;

/** The breed the scale run's `breed` finder looks for: one in thirteen. */
export const SEARCHED_BREED = "Beagle";

/** A yes/no field's cycle: `yes` of `length` animals have it. */
const yes = (count: number, length: number): boolean[] =>
  Array.from({ length }, (_, i) => i < count);

const AGES: readonly PetAge[] = ["baby", "young", "adult", "adult", "senior"];
const SEXES: readonly PetSex[] = ["female", "male"];
const SIZES: readonly PetSize[] = [
  "small",
  "small",
  "medium",
  "medium",
  "large",
  "large",
  "xlarge",
];

/** Each drawn field's cycle, its length a prime (or 2, 5, 7, 13) none of the others shares. */
export const PROFILE_CYCLES = {
  breed: BREEDS,
  age: AGES,
  sex: SEXES,
  size: SIZES,
  goodWithChildren: yes(7, 11),
  goodWithDogs: yes(10, 17),
  goodWithCats: yes(8, 19),
  houseTrained: yes(17, 23),
  specialNeeds: yes(3, 29),
  spayedNeutered: yes(24, 31),
} satisfies Record<"breed" | "age" | "sex" | "size" | YesNoField, readonly (string | boolean)[]>;

type DrawnField = keyof typeof PROFILE_CYCLES;
type Drawn = { [F in DrawnField]: (typeof PROFILE_CYCLES)[F][number] };

/** The profile the animal with this id is given, living in one of `shelters` shelters (ids 1 on). */
export function profileOf(id: number, shelters: number): Drawn & { shelterId: number } {
  const drawn = Object.fromEntries(
    Object.entries(PROFILE_CYCLES).map(([field, cycle]) => [field, cycle[id % cycle.length]]),
  ) as Drawn;
  return { shelterId: (id % shelters) + 1, ...drawn };
}

/** The share of the animals whose `field` is `value`, over whole cycles. */
export function shareOf<F extends DrawnField>(field: F, value: Drawn[F]): number {
  const cycle: readonly unknown[] = PROFILE_CYCLES[field];
  return cycle.filter((each) => each === value).length / cycle.length;
}

const columnOf = (field: string) => field.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
const literal = (value: string | boolean) =>
  typeof value === "boolean" ? (value ? "1" : "0") : `'${value.replaceAll("'", "''")}'`;

/**
 * The profile's columns and, for an animal whose id is the SQL expression
 * `id`, their values as `profileOf` gives them: CASE expressions, which
 * SQLite computes a million times over in seconds. Without `breed`, the
 * breed stays null, for animals kept out of the search index.
 */
export function profileSql(
  id: string,
  shelters: number,
  { breed = true }: { breed?: boolean } = {},
): { columns: string; values: string } {
  const fields = Object.entries(PROFILE_CYCLES).filter(([field]) => breed || field !== "breed");
  const drawn = fields.map(([field, cycle]) => {
    const branches = cycle.map((value, i) => `WHEN ${i} THEN ${literal(value)}`).join(" ");
    return { column: columnOf(field), value: `CASE ${id} % ${cycle.length} ${branches} END` };
  });
  const all = [{ column: "shelter_id", value: `${id} % ${shelters} + 1` }, ...drawn];
  return {
    columns: all.map(({ column }) => column).join(", "),
    values: all.map(({ value }) => value).join(", "),
  };
}
