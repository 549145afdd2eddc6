import type { PET_AGES, PET_SEXES, PET_SIZES } from "../../db/pet-profile-columns.ts";
import { YES_NO_FIELDS, type YesNoField } from "../../pets/pet-profile.schemas.ts";
import type { Pet } from "../../pets/pets.schemas.ts";
import type { Shelter } from "../../shelters/shelters.schemas.ts";
import type { AnimalField, AnimalFormValues } from "../animal-form.ts";
import type { FieldErrors } from "../form-values.ts";
import { Choice, Choices, describedBy, FieldError } from "./form-fields.tsx";
import { SelectField, TextField } from "./labelled-fields.tsx";

/** The yes/no fields as a person reads them. */
export const YES_NO_NAMES: Record<YesNoField, string> = {
  goodWithChildren: "Good with children",
  goodWithDogs: "Good with dogs",
  goodWithCats: "Good with cats",
  houseTrained: "House-trained",
  specialNeeds: "Has special needs",
  spayedNeutered: "Spayed or neutered",
};

export const AGE_NAMES: Record<(typeof PET_AGES)[number], string> = {
  baby: "Baby",
  young: "Young",
  adult: "Adult",
  senior: "Senior",
};
export const SEX_NAMES: Record<(typeof PET_SEXES)[number], string> = {
  female: "Female",
  male: "Male",
};
export const SIZE_NAMES: Record<(typeof PET_SIZES)[number], string> = {
  small: "Small",
  medium: "Medium",
  large: "Large",
  xlarge: "Extra large",
};

/** The choices of an enum field, the empty one first ("not known" in a form, "any" in a search). */
export function choicesOf<V extends string>(names: Record<V, string>, empty = "Not known") {
  return [
    { value: "", label: empty },
    ...Object.entries<string>(names).map(([value, label]) => ({ value, label })),
  ];
}

interface ProfileFieldsProps {
  values: AnimalFormValues;
  errors: FieldErrors<AnimalField>;
  focus: AnimalField | undefined;
  shelters: Shelter[];
}

/**
 * The profile's fields in the animal form, by the API's names and values:
 * selects for the shelter and the enums, yes / no / not known for each
 * yes/no field (`true`, `false`, empty), a textarea for the description.
 */
export function ProfileFields({ values, errors, focus, shelters }: ProfileFieldsProps) {
  const select = (
    name: "age" | "sex" | "size",
    label: string,
    options: { value: string; label: string }[],
  ) => (
    <SelectField
      name={name}
      label={label}
      value={values[name]}
      options={options}
      errors={errors[name]}
      autofocus={focus === name}
    />
  );
  return (
    <fieldset>
      <legend>What adopters look for</legend>
      <SelectField
        name="shelterId"
        label="Shelter"
        value={values.shelterId}
        options={[
          { value: "", label: "No shelter" },
          ...shelters.map((shelter) => ({ value: String(shelter.id), label: shelter.name })),
        ]}
        errors={errors.shelterId}
        autofocus={focus === "shelterId"}
      />
      <TextField
        name="breed"
        label="Breed (optional)"
        value={values.breed}
        errors={errors.breed}
        autofocus={focus === "breed"}
        maxlength={60}
        autocomplete="off"
      />
      {select("age", "Age", choicesOf(AGE_NAMES))}
      {select("sex", "Sex", choicesOf(SEX_NAMES))}
      {select("size", "Size when grown", choicesOf(SIZE_NAMES))}
      {YES_NO_FIELDS.map((field) => (
        <Choices name={field} legend={YES_NO_NAMES[field]} errors={errors[field]}>
          <div class="inline-choices">
            {[
              { value: "true", label: "Yes" },
              { value: "false", label: "No" },
              { value: "", label: "Not known" },
            ].map((choice, index) => (
              <Choice
                type="radio"
                name={field}
                value={choice.value}
                checked={values[field] === choice.value}
                autofocus={focus === field && index === 0}
                label={choice.label}
              />
            ))}
          </div>
        </Choices>
      ))}
      <div>
        <label for="description">Description (optional)</label>
        <p class="hint" id="description-hint">
          What an adopter should know: character, habits, needs. Plain text, at most 4,000
          characters.
        </p>
        <FieldError id="description-error" errors={errors.description} />
        <textarea
          id="description"
          name="description"
          rows={6}
          maxlength={4000}
          autofocus={focus === "description"}
          aria-invalid={errors.description ? "true" : undefined}
          aria-describedby={describedBy(
            "description-hint",
            errors.description && "description-error",
          )}
        >
          {values.description}
        </textarea>
      </div>
    </fieldset>
  );
}

const yesNoText = (value: boolean | null) => (value === null ? "Not known" : value ? "Yes" : "No");

/** The profile as the animal's page shows it. */
export function ProfileFacts({ pet, shelterName }: { pet: Pet; shelterName: string | undefined }) {
  const known = (value: string | null, names: Record<string, string>) =>
    value === null ? "Not known" : (names[value] ?? value);
  return (
    <>
      <dt>Shelter</dt>
      <dd>
        {pet.shelterId === null ? (
          "None"
        ) : (
          <a href={`/dashboard/shelters/${pet.shelterId}`}>
            {shelterName ?? `Shelter ${pet.shelterId}`}
          </a>
        )}
      </dd>
      <dt>Breed</dt>
      <dd>{pet.breed ?? "Not known"}</dd>
      <dt>Age</dt>
      <dd>{known(pet.age, AGE_NAMES)}</dd>
      <dt>Sex</dt>
      <dd>{known(pet.sex, SEX_NAMES)}</dd>
      <dt>Size</dt>
      <dd>{known(pet.size, SIZE_NAMES)}</dd>
      {YES_NO_FIELDS.map((field) => (
        <>
          <dt>{YES_NO_NAMES[field]}</dt>
          <dd>{yesNoText(pet[field])}</dd>
        </>
      ))}
      <dt>Description</dt>
      <dd class="description">{pet.description ?? "None yet"}</dd>
    </>
  );
}
