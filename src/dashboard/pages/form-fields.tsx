import type { Child } from "hono/jsx";
import { CSRF_FIELD } from "../csrf.ts";

/** The field's error sentences, under it, named so the field can point at them. */
export function FieldError({ id, errors }: { id: string; errors: string[] | undefined }) {
  if (!errors || errors.length === 0) return null;
  if (errors.length === 1) {
    return (
      <p class="error" id={id}>
        {errors[0]}
      </p>
    );
  }
  return (
    <ul class="error" id={id}>
      {errors.map((error) => (
        <li>{error}</li>
      ))}
    </ul>
  );
}

/** The sentence under a field's label saying what it needs, if it has one; `id` is what the field points at. */
export function Hint({ id, hint }: { id: string | undefined; hint: Child | undefined }) {
  if (!hint) return null;
  return (
    <p class="hint" id={id}>
      {hint}
    </p>
  );
}

/** What ties a field to its hint and its error, for a screen reader. */
export function describedBy(...ids: (string | false | undefined)[]): string | undefined {
  const named = ids.filter((id): id is string => typeof id === "string" && id !== "");
  return named.length > 0 ? named.join(" ") : undefined;
}

/**
 * A group of radio buttons or checkboxes under its legend, with its hint and
 * error; `invalid` marks the group for assistive technology.
 */
export function Choices(props: {
  name: string;
  legend: string;
  hint?: Child;
  errors: string[] | undefined;
  children: Child;
}) {
  const { name, legend, hint, errors, children } = props;
  const hintId = hint ? `${name}-hint` : undefined;
  const errorId = errors?.length ? `${name}-error` : undefined;
  return (
    <fieldset
      class="choices"
      aria-describedby={describedBy(hintId, errorId)}
      aria-invalid={errorId ? "true" : undefined}
    >
      <legend>{legend}</legend>
      <Hint id={hintId} hint={hint} />
      <FieldError id={`${name}-error`} errors={errors} />
      {children}
    </fieldset>
  );
}

/** One radio button or checkbox with its label (and a line under it saying what it means). */
export function Choice(props: {
  type: "radio" | "checkbox";
  name: string;
  value: string;
  checked: boolean;
  autofocus?: boolean;
  label: Child;
  detail?: Child;
}) {
  const id = `${props.name}-${props.value.replace(/[^\w-]/g, "_")}`;
  return (
    <div class="choice">
      <input
        type={props.type}
        id={id}
        name={props.name}
        value={props.value}
        checked={props.checked}
        autofocus={props.autofocus}
      />
      <label for={id}>
        {props.label}
        {props.detail && <span class="detail">{props.detail}</span>}
      </label>
    </div>
  );
}

/** One Choice per option, all of one name; the first takes the focus when `focus` says so. */
export function ChoiceList<V extends string>(props: {
  type: "radio" | "checkbox";
  name: string;
  options: readonly V[];
  checked: (option: V) => boolean;
  focus: boolean;
  label: (option: V) => Child;
  detail?: (option: V) => Child;
}) {
  return (
    <>
      {props.options.map((option, index) => (
        <Choice
          type={props.type}
          name={props.name}
          value={option}
          checked={props.checked(option)}
          autofocus={props.focus && index === 0}
          label={props.label(option)}
          detail={props.detail?.(option)}
        />
      ))}
    </>
  );
}

/** A button that posts to the dashboard (with the form's token) and nothing else: an action on a row or a page. */
export function PostButton(props: { action: string; label: string; csrf: string }) {
  return (
    <form method="post" action={props.action}>
      <input type="hidden" name={CSRF_FIELD} value={props.csrf} />
      <button type="submit" class="secondary">
        {props.label}
      </button>
    </form>
  );
}

/** Why the last attempt was refused, when it was, above what it refused. */
export function Refusal({ reason }: { reason: string | undefined }) {
  if (!reason) return null;
  return (
    <p class="error refused" role="alert" data-testid="form-error">
      {reason}
    </p>
  );
}

/**
 * A confirmation's two ways on: the post that does what it asks (with the
 * version the page shows, where the change wants one), or back without it.
 */
export function ConfirmActions(props: {
  action: string;
  csrf: string;
  etag?: string;
  confirm: Child;
  back: string;
}) {
  const { action, csrf, etag, confirm, back } = props;
  return (
    <div class="actions">
      <form method="post" action={action}>
        <input type="hidden" name={CSRF_FIELD} value={csrf} />
        {etag !== undefined && <input type="hidden" name="etag" value={etag} />}
        <button type="submit" class="danger">
          {confirm}
        </button>
      </form>
      <a class="button secondary" href={back}>
        Keep it
      </a>
    </div>
  );
}

/** A form's last row: the button that sends it, and the way back without sending. */
export function FormActions({ submit, back }: { submit: string; back: string }) {
  return (
    <div class="actions">
      <button type="submit">{submit}</button>
      <a class="button secondary" href={back}>
        Cancel
      </a>
    </div>
  );
}
