import { type CredentialErrors, type CredentialsMode, NEW_PASSWORD_HINT } from "../credentials.ts";
import { CSRF_FIELD } from "../csrf.ts";
import { describedBy, Hint } from "./form-fields.tsx";
import { Layout } from "./layout.tsx";

interface FormFieldProps {
  label: string;
  name: string;
  type: "email" | "password";
  autocomplete: string;
  value?: string;
  /** A sentence under the label saying what the field needs. */
  hint?: string;
  error?: string;
  /** The first field in error of a refused form: the focus goes to it. */
  autofocus?: boolean;
}

/** A labelled input with its error, if any, right beside it. */
function FormField(props: FormFieldProps) {
  const { label, name, type, autocomplete, value, hint, error, autofocus } = props;
  return (
    <div>
      <label for={name}>{label}</label>
      <Hint id={`${name}-hint`} hint={hint} />
      <input
        id={name}
        name={name}
        type={type}
        value={value}
        autocomplete={autocomplete}
        required
        autofocus={autofocus}
        aria-invalid={error ? "true" : undefined}
        aria-describedby={describedBy(hint && `${name}-hint`, error && `${name}-error`)}
      />
      {error && (
        <p class="error" id={`${name}-error`}>
          {error}
        </p>
      )}
    </div>
  );
}

export interface CredentialsFormState {
  email?: string;
  errors?: CredentialErrors;
  notice?: string;
}

const copy = {
  "sign-up": {
    title: "Create an account",
    button: "Create account",
    passwordHint: NEW_PASSWORD_HINT,
    passwordAutocomplete: "new-password",
    other: { text: "Already have an account?", href: "/dashboard/sign-in", link: "Sign in" },
  },
  "sign-in": {
    title: "Sign in",
    button: "Sign in",
    passwordHint: undefined,
    passwordAutocomplete: "current-password",
    other: { text: "No account yet?", href: "/dashboard/sign-up", link: "Create one" },
  },
} as const;

/** The sign-up and sign-in forms: the same two fields, different words and target. */
export function CredentialsPage(
  props: CredentialsFormState & { mode: CredentialsMode; csrf: string },
) {
  const { mode, csrf, email, errors = {}, notice } = props;
  const text = copy[mode];
  return (
    <Layout title={text.title}>
      {notice && <p class="notice">{notice}</p>}
      {errors.form && <p class="error">{errors.form}</p>}
      <form method="post" action={`/dashboard/${mode}`}>
        <input type="hidden" name={CSRF_FIELD} value={csrf} />
        <FormField
          label="Email"
          name="email"
          type="email"
          autocomplete="email"
          value={email}
          error={errors.email}
          autofocus={errors.email !== undefined}
        />
        <FormField
          label="Password"
          name="password"
          type="password"
          autocomplete={text.passwordAutocomplete}
          hint={text.passwordHint}
          error={errors.password}
          autofocus={errors.email === undefined && errors.password !== undefined}
        />
        <button type="submit">{text.button}</button>
      </form>
      <p>
        {text.other.text} <a href={text.other.href}>{text.other.link}</a>
      </p>
    </Layout>
  );
}

/** Sets the password of an account an operator made, through its one-time link (the form's action). */
export function InvitePage(props: { csrf: string; email: string; action: string; error?: string }) {
  const { csrf, email, action, error } = props;
  return (
    <Layout title="Set your password">
      <p>
        An account for <strong>{email}</strong> is ready. Choose a password to sign in with; this
        link works once.
      </p>
      <form method="post" action={action}>
        <input type="hidden" name={CSRF_FIELD} value={csrf} />
        <FormField
          label="Password"
          hint={NEW_PASSWORD_HINT}
          name="password"
          type="password"
          autocomplete="new-password"
          error={error}
          autofocus={error !== undefined}
        />
        <button type="submit">Set password and sign in</button>
      </form>
    </Layout>
  );
}
