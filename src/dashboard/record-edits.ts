import { noticeAndRedirect } from "./account.handlers.tsx";
import { savedText, staleEdit } from "./form-refusals.ts";
import type { RecordTarget } from "./pages/labelled-fields.tsx";
import type { DashboardContext } from "./session.ts";

/** What an edit form knows of its record: which it is, its version and its name. */
type Editable = { id: number; etag: string; name: string };

/**
 * One kind of the account's records as its edit form sees it (an animal, a
 * shelter): the steps of an edit that are the same for every kind.
 */
export interface RecordEdits<R extends Editable, Values> {
  noun: string;
  /** The record the path names, if it is the signed-in account's. */
  own(c: DashboardContext): Promise<R | undefined>;
  notFound(c: DashboardContext): Response | Promise<Response>;
  /** The record's page, where a saved edit leads. */
  page(id: number): string;
  valuesOf(record: R): Values;
  form(
    c: DashboardContext,
    form: { values: Values; formError?: string; target: RecordTarget },
    status?: 409,
  ): Promise<Response>;
}

/** The edit form, drawn from the record as it now is. */
export function showEditForm<R extends Editable, V>(edits: RecordEdits<R, V>) {
  return async (c: DashboardContext) => {
    const record = await edits.own(c);
    if (!record) return edits.notFound(c);
    const target = { id: record.id, etag: record.etag };
    return edits.form(c, { values: edits.valuesOf(record), target });
  };
}

/** A saved edit, or one that changed nothing, leads to the record's page saying which. */
export function savedEdit<R extends Editable, V>(
  c: DashboardContext,
  edits: RecordEdits<R, V>,
  edited: boolean,
  record: R,
) {
  const text = savedText(edited, record.name, edits.noun);
  return noticeAndRedirect(c, { kind: "done", text }, edits.page(record.id));
}

/**
 * An edit of a version that has changed since: the form again, showing the
 * record as it now is; or, when it already is what the form asks (`asAsked`:
 * a second submit of a form that was saved), its page, since nothing is lost.
 */
export async function staleEditForm<R extends Editable, V>(
  c: DashboardContext,
  edits: RecordEdits<R, V>,
  asAsked: (current: R) => boolean = () => false,
) {
  const current = await edits.own(c);
  if (!current) return edits.notFound(c);
  if (asAsked(current)) {
    const text = `${current.name} is saved.`;
    return noticeAndRedirect(c, { kind: "done", text }, edits.page(current.id));
  }
  const target = { id: current.id, etag: current.etag };
  const formError = staleEdit(edits.noun);
  return edits.form(c, { values: edits.valuesOf(current), formError, target }, 409);
}
