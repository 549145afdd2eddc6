import type { Category } from "../../categories/categories.schemas.ts";
import { PET_STATUSES } from "../../db/schema.ts";
import { YES_NO_FIELDS } from "../../pets/pet-profile.schemas.ts";
import type { Shelter } from "../../shelters/shelters.schemas.ts";
import { STATUS_NAMES } from "./animal-form-page.tsx";
import { AGE_NAMES, choicesOf, SEX_NAMES, SIZE_NAMES, YES_NO_NAMES } from "./animal-profile.tsx";
import { SelectField, TextField } from "./labelled-fields.tsx";

/** The finders the list's search form sends, by the API's names. */
export const FINDER_FIELDS = [
  "q",
  "status",
  "categoryId",
  "shelterId",
  "breed",
  "age",
  "size",
  "sex",
  ...YES_NO_FIELDS,
] as const;

/** The finders of an animal's profile, behind "More filters". */
const PROFILE_FINDERS = new Set<string>(FINDER_FIELDS.slice(3));

interface AnimalFindersProps {
  /** The finders as the address gave them (empty ones left out). */
  finders: Record<string, string[]>;
  categories: Category[];
  shelters: Shelter[];
}

/**
 * The list's search form: a GET of the API's finders by their names, each
 * empty field meaning any. The profile's finders fold away until used.
 */
export function AnimalFinders({ finders, categories, shelters }: AnimalFindersProps) {
  // A finder's field holds what was asked for, shows no error and takes no focus.
  const field = (name: string, label: string) => ({
    name,
    label,
    value: finders[name]?.[0] ?? "",
    errors: undefined,
    autofocus: false,
  });
  const select = (name: string, label: string, options: { value: string; label: string }[]) => (
    <SelectField {...field(name, label)} options={options} />
  );
  const text = (name: string, label: string, hint: string, maxlength: number) => (
    <TextField {...field(name, label)} type="search" hint={hint} maxlength={maxlength} />
  );
  const profiled = Object.keys(finders).some((name) => PROFILE_FINDERS.has(name));
  const any = { value: "", label: "Any" };
  return (
    <search>
      <form method="get" action="/dashboard/animals" class="stacked">
        <div class="finders">
          {text("q", "Name", "Words that begin words of the name.", 100)}
          {select("status", "Status", [
            { value: "", label: "Any status" },
            ...PET_STATUSES.map((status) => ({ value: status, label: STATUS_NAMES[status] })),
          ])}
          {select("categoryId", "Category", [
            { value: "", label: "Any category" },
            ...categories.map((category) => ({ value: String(category.id), label: category.name })),
          ])}
        </div>
        <details open={profiled}>
          <summary>More filters: shelter, breed, age, temperament</summary>
          <div class="finders">
            {select("shelterId", "Shelter", [
              { value: "", label: "Any shelter" },
              ...shelters.map((shelter) => ({ value: String(shelter.id), label: shelter.name })),
            ])}
            {text("breed", "Breed", "Words that begin words of the breed.", 60)}
            {select("age", "Age", choicesOf(AGE_NAMES, "Any"))}
            {select("size", "Size", choicesOf(SIZE_NAMES, "Any"))}
            {select("sex", "Sex", choicesOf(SEX_NAMES, "Any"))}
            {YES_NO_FIELDS.map((field) =>
              select(field, YES_NO_NAMES[field], [
                any,
                { value: "true", label: "Yes" },
                { value: "false", label: "No" },
              ]),
            )}
          </div>
        </details>
        <div class="actions">
          <button type="submit">Find</button>
          {Object.keys(finders).length > 0 && <a href="/dashboard/animals">Show all</a>}
        </div>
      </form>
    </search>
  );
}
