/**
 * The paths where the floor answers beside the API's own: each a path of
 * its own, as a static segment beside `/v1/pets/:petId` would keep the
 * floor off the RegExpRouter the API matches with.
 */

/** Where the floor runs a create's INSERT alone. */
export const INSERT_ONLY_PATH = "/v1/pet-inserts";

/**
 * Where the floor answers the listing (its finders too), the fetch of one
 * animal and an animal's edit with the headers each of those replies of the
 * API carries as well (floor/floors.ts).
 */
export const WITH_HEADERS_PATH = "/v1/pet-replies";

/** Where the floor answers the shelters' listing with the headers the API's reply carries. */
export const SHELTER_REPLIES_PATH = "/v1/shelter-replies";

/**
 * Where the floor answers the page of animals near a place with the API's
 * own statements, saying in `Rows-Read` how many rows D1 read for it.
 */
export const NEAR_ROWS_READ_PATH = "/v1/pets-near-rows-read";

/**
 * Where the floor answers the same page the straightforward way: the
 * distance to every shelter, then their animals, sorted; with `Rows-Read`.
 */
export const NEAR_STRAIGHTFORWARD_PATH = "/v1/pets-near-straightforward";

/** The header those two answer D1's `meta.rows_read` in, summed over the page's statements. */
export const ROWS_READ_HEADER = "Rows-Read";
