import { z } from "@hono/zod-openapi";
import { IdentifierParameterSchema } from "../api/identifiers.ts";
import { repeatedParameter } from "../api/pagination.ts";
import { prefixQuery } from "../api/search-words.ts";
import { nameSchema } from "../api/text.ts";
import {
  PetAgeSchema,
  PetSexSchema,
  PetSizeSchema,
  YES_NO_FIELDS,
  type YesNoField,
} from "./pet-profile.schemas.ts";

/**
 * The listing's profile filters: `shelterId`, `breed`, `age` and `size`
 * repeatable (any of the values), `sex` once, and the six yes/no fields as
 * `true` or `false`, matching exactly that value (never an animal for which
 * it is not known). At most 100 values in all.
 */

const MAX_PROFILE_VALUES = 100;

const breedValue = nameSchema(60).refine(
  (text) => prefixQuery(text) !== undefined,
  "Must hold a word: letters or digits",
);

const yesNoParameter = (field: YesNoField) =>
  z
    .enum(["true", "false"])
    .transform((text) => text === "true")
    .optional()
    .openapi({
      param: {
        name: field,
        in: "query",
        description: `Only animals whose \`${field}\` is this value (beta); never one for which it is not known.`,
      },
      example: "true",
    });

/** The profile filters, as the listing's query declares them. */
export const profileFinders = {
  shelterId: repeatedParameter(
    "shelterId",
    IdentifierParameterSchema,
    MAX_PROFILE_VALUES,
    "Only animals in one of these shelters (beta; repeatable).",
  ).openapi({ example: [7] }),
  breed: repeatedParameter(
    "breed",
    breedValue,
    MAX_PROFILE_VALUES,
    "Only animals of one of these breeds (beta; repeatable): every word of a value begins a word of the breed, ignoring case and accents (`lab` finds Labrador Retriever). A value must hold a word.",
  ).openapi({ example: ["lab"] }),
  age: repeatedParameter(
    "age",
    PetAgeSchema,
    MAX_PROFILE_VALUES,
    "Only animals of one of these ages (beta; repeatable).",
  ).openapi({ example: ["young"] }),
  size: repeatedParameter(
    "size",
    PetSizeSchema,
    MAX_PROFILE_VALUES,
    "Only animals of one of these sizes (beta; repeatable).",
  ).openapi({ example: ["small"] }),
  sex: PetSexSchema.optional().openapi({
    param: { name: "sex", in: "query", description: "Only animals of this sex (beta)." },
  }),
  ...(Object.fromEntries(YES_NO_FIELDS.map((field) => [field, yesNoParameter(field)])) as {
    [F in YesNoField]: ReturnType<typeof yesNoParameter>;
  }),
};

type ProfileFinderValues = {
  [K in keyof typeof profileFinders]?: z.output<(typeof profileFinders)[K]>;
};

/** Refuses a listing whose profile filters hold more than 100 values in all. */
export function atMostProfileValues(query: ProfileFinderValues, ctx: z.RefinementCtx) {
  const values = Object.keys(profileFinders)
    .map((name) => query[name as keyof ProfileFinderValues])
    .reduce<number>(
      (total, value) => total + (value === undefined ? 0 : Array.isArray(value) ? value.length : 1),
      0,
    );
  if (values > MAX_PROFILE_VALUES) {
    ctx.addIssue({
      code: "custom",
      message: `The profile filters may hold at most ${MAX_PROFILE_VALUES} values in all`,
    });
  }
}

/** The yes/no filters as a next link repeats them: `true` or `false`, absent when not given. */
export function yesNoParameters(yesNo: Partial<Record<YesNoField, boolean | undefined>>) {
  return Object.fromEntries(
    YES_NO_FIELDS.map((field) => [
      field,
      yesNo[field] === undefined ? undefined : String(yesNo[field]),
    ]),
  );
}
