import { integer, text } from "drizzle-orm/sqlite-core";

export const PET_AGES = ["baby", "young", "adult", "senior"] as const;
export const PET_SEXES = ["female", "male"] as const;
export const PET_SIZES = ["small", "medium", "large", "xlarge"] as const;

/**
 * The columns of an animal's profile, which adopters filter on: each null
 * when not known. No foreign key to the shelter, as for the category: a
 * tombstone keeps naming a shelter that may since have been deleted.
 */
export const profileColumns = {
  shelterId: integer("shelter_id"),
  breed: text("breed"),
  age: text("age", { enum: PET_AGES }),
  sex: text("sex", { enum: PET_SEXES }),
  size: text("size", { enum: PET_SIZES }),
  goodWithChildren: integer("good_with_children", { mode: "boolean" }),
  goodWithDogs: integer("good_with_dogs", { mode: "boolean" }),
  goodWithCats: integer("good_with_cats", { mode: "boolean" }),
  houseTrained: integer("house_trained", { mode: "boolean" }),
  specialNeeds: integer("special_needs", { mode: "boolean" }),
  spayedNeutered: integer("spayed_neutered", { mode: "boolean" }),
  description: text("description"),
};
