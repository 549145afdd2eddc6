export interface FormFieldProps {
  label: string;
  name: string;
  type: "email" | "password";
  autocomplete: string;
  value?: string;
  error?: string;
}

/** A labelled input with its error, if any, right beside it. */
export function FormField({ label, name, type, autocomplete, value, error }: FormFieldProps) {
  const errorId = `${name}-error`;
  return (
    <div>
      <label for={name}>{label}</label>
      <input
        id={name}
        name={name}
        type={type}
        value={value}
        autocomplete={autocomplete}
        required
        aria-invalid={error ? "true" : undefined}
        aria-describedby={error ? errorId : undefined}
      />
      {error && (
        <p class="error" id={errorId}>
          {error}
        </p>
      )}
    </div>
  );
}
