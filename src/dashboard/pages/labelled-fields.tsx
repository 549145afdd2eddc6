import type { Child } from "hono/jsx";
import { CSRF_FIELD } from "../csrf.ts";
import { FORM_KEY_FIELD } from "../form-keys.ts";
import { describedBy, FieldError, FormActions, Hint, Refusal } from "./form-fields.tsx";

/** A labelled field's label, hint, error and whether it takes the focus. */
interface FieldFrame {
  name: string;
  label: string;
  hint?: string;
  errors: string[] | undefined;
  autofocus: boolean;
}

/** What ties a control to its frame: its id and name, the focus, and its hint and error for a screen reader. */
function controlOf({ name, hint, errors, autofocus }: FieldFrame) {
  return {
    id: name,
    name,
    autofocus,
    "aria-invalid": errors ? ("true" as const) : undefined,
    "aria-describedby": describedBy(hint && `${name}-hint`, errors && `${name}-error`),
  };
}

/** The control under its label and hint, its error above it. */
function Labelled({ frame, children }: { frame: FieldFrame; children: Child }) {
  const { name, label, hint, errors } = frame;
  return (
    <div>
      <label for={name}>{label}</label>
      <Hint id={`${name}-hint`} hint={hint} />
      <FieldError id={`${name}-error`} errors={errors} />
      {children}
    </div>
  );
}

/** A select of the given options under its label, with its hint and error. */
export function SelectField(
  props: FieldFrame & {
    value: string;
    options: readonly { value: string; label: string }[];
    required?: boolean;
  },
) {
  const { value, options, required } = props;
  return (
    <Labelled frame={props}>
      <select required={required} {...controlOf(props)}>
        {options.map((option) => (
          <option value={option.value} selected={option.value === value}>
            {option.label}
          </option>
        ))}
      </select>
    </Labelled>
  );
}

/** A one-line text field under its label, with its hint and error. */
export function TextField(
  props: FieldFrame & {
    value: string;
    type?: "text" | "search" | "email" | "tel" | "url";
    required?: boolean;
    maxlength?: number;
    inputmode?: "decimal" | "numeric" | "text";
    autocomplete?: string;
  },
) {
  const { name, label, hint, errors, autofocus, type = "text", ...attributes } = props;
  return (
    <Labelled frame={props}>
      <input type={type} {...attributes} {...controlOf(props)} />
    </Labelled>
  );
}

/** What a form that adds or edits a record posts with it: a new record's form, or the record and its version. */
export type RecordTarget = { formKey: string } | { id: number; etag: string };

/**
 * A form that adds a record (to `collection`) or edits one (at
 * `collection/{id}`): why it was refused, if it was, then the form with its
 * CSRF token and its one-time token or the version it was drawn from, its
 * fields, and its button (`add` names it for a new record) and way back.
 */
export function RecordForm(props: {
  collection: string;
  add: string;
  csrf: string;
  target: RecordTarget;
  formError?: string;
  children: Child;
}) {
  const { collection, add, csrf, target, formError, children } = props;
  const editing = "id" in target;
  const page = editing ? `${collection}/${target.id}` : collection;
  return (
    <>
      <Refusal reason={formError} />
      <form method="post" action={page} class="stacked">
        <input type="hidden" name={CSRF_FIELD} value={csrf} />
        {editing ? (
          <input type="hidden" name="etag" value={target.etag} />
        ) : (
          <input type="hidden" name={FORM_KEY_FIELD} value={target.formKey} />
        )}
        {children}
        <FormActions submit={editing ? "Save changes" : add} back={page} />
      </form>
    </>
  );
}
