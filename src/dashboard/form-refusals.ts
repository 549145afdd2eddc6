import { acceptedVersions, EntityTagSchema } from "../api/entity-tags.ts";
import { textOf } from "./form-values.ts";
import { accountChanger } from "./own-animal.ts";
import { messageResponse } from "./pages/layout.tsx";
import type { DashboardContext } from "./session.ts";

/**
 * What the back office's forms say when a change of a record is refused or
 * ends, the same way for an animal and a shelter (`noun`).
 */

/** The version a form was drawn from, as its `etag` field carries it; undefined when it is not one. */
function etagOf(c: DashboardContext): string | undefined {
  const etag = textOf(c.get("form"), "etag");
  return EntityTagSchema.safeParse(etag).success ? etag : undefined;
}

/**
 * The version an edit form was drawn from, and the versions its change
 * accepts as `If-Match`; or the 400 page for a form that does not say.
 */
export function editedVersion(
  c: DashboardContext,
  noun: string,
): { etag: string; accepted: readonly number[] | undefined } | { refused: Promise<Response> } {
  const etag = etagOf(c);
  if (etag !== undefined) return { etag, accepted: acceptedVersions(etag) };
  const refused = messageResponse(
    c,
    400,
    "Form could not be read",
    `That form did not say which version of the ${noun} it edits. Go back, reload the page and try again.`,
  );
  return { refused: Promise.resolve(refused) };
}

/** An edit of a version that changed since: refused, the form showing the record as it now is. */
export const staleEdit = (noun: string) =>
  `Someone changed this ${noun} after you opened this form, so your changes were not saved. The form now shows its current values: make your changes again and save.`;

/**
 * What a deletion's confirmation asks of the change: the record, the account
 * as its changer, and the versions it accepts (any, when the form does not say).
 */
export function deletionRequest(c: DashboardContext, id: number) {
  const etag = etagOf(c);
  const accepted = etag === undefined ? undefined : acceptedVersions(etag);
  return { id, changer: accountChanger(c), accepted };
}

/** A deletion of a version that changed since: refused, the confirmation showing the record as it now is. */
export const staleDeletion = (noun: string) =>
  `Someone changed this ${noun} after this page was drawn, so it was not deleted. Here it is as it now is: delete it if you still mean to.`;

/** A form's one-time token sent again with other values: nothing was made. */
export const reusedForm = (things: string) =>
  `This form was already sent with other values. Nothing was added: check your ${things}, then add it again from a fresh form.`;

/** What a saved edit tells the record's page. */
export const savedText = (edited: boolean, name: string, noun: string) =>
  edited ? `${name} is saved.` : `Nothing changed: the ${noun} already had these values.`;
