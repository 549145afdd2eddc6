import { describedBy, FieldError } from "./form-fields.tsx";

/** A labelled field's label, hint, error and how the input points at them. */
interface FieldFrame {
  name: string;
  label: string;
  hint?: string;
  errors: string[] | undefined;
  autofocus: boolean;
}

/** A select of the given options under its label, with its hint and error. */
export function SelectField(
  props: FieldFrame & {
    value: string;
    options: readonly { value: string; label: string }[];
    required?: boolean;
  },
) {
  const { name, label, hint, errors, autofocus, value, options, required } = props;
  return (
    <div>
      <label for={name}>{label}</label>
      {hint && (
        <p class="hint" id={`${name}-hint`}>
          {hint}
        </p>
      )}
      <FieldError id={`${name}-error`} errors={errors} />
      <select
        id={name}
        name={name}
        required={required}
        autofocus={autofocus}
        aria-invalid={errors ? "true" : undefined}
        aria-describedby={describedBy(hint && `${name}-hint`, errors && `${name}-error`)}
      >
        {options.map((option) => (
          <option value={option.value} selected={option.value === value}>
            {option.label}
          </option>
        ))}
      </select>
    </div>
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
  const { name, label, hint, errors, autofocus, value, type = "text", ...rest } = props;
  return (
    <div>
      <label for={name}>{label}</label>
      {hint && (
        <p class="hint" id={`${name}-hint`}>
          {hint}
        </p>
      )}
      <FieldError id={`${name}-error`} errors={errors} />
      <input
        id={name}
        name={name}
        type={type}
        value={value}
        autofocus={autofocus}
        aria-invalid={errors ? "true" : undefined}
        aria-describedby={describedBy(hint && `${name}-hint`, errors && `${name}-error`)}
        {...rest}
      />
    </div>
  );
}
