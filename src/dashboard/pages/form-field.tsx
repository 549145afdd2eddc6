export interface FormFieldProps {
  label: string;
  name: string;
  type: "email" | "password";
  autocomplete: string;
  value?: string;
  /** A sentence under the label saying what the field needs. */
  hint?: string;
  error?: string;
}

/** A labelled input with its error, if any, right beside it. */
export function FormField({ label, name, type, autocomplete, value, hint, error }: FormFieldProps) {
  const errorId = `${name}-error`;
  const hintId = `${name}-hint`;
  const describedBy = [hint && hintId, error && errorId].filter(Boolean).join(" ");
  return (
    <div>
      <label for={name}>{label}</label>
      {hint && (
        <p class="hint" id={hintId}>
          {hint}
        </p>
      )}
      <input
        id={name}
        name={name}
        type={type}
        value={value}
        autocomplete={autocomplete}
        required
        aria-invalid={error ? "true" : undefined}
        aria-describedby={describedBy || undefined}
      />
      {error && (
        <p class="error" id={errorId}>
          {error}
        </p>
      )}
    </div>
  );
}
