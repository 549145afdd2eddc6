import { CSRF_FIELD } from "../csrf.ts";
import { NEW_PASSWORD_HINT } from "../passwords.ts";
import { FormField } from "./form-field.tsx";
import { Layout } from "./layout.tsx";

export interface CredentialsFormState {
  csrf: string;
  email?: string;
  errors?: { email?: string; password?: string; form?: string };
  notice?: string;
}

interface CredentialsPageProps extends CredentialsFormState {
  mode: "sign-up" | "sign-in";
}

const copy = {
  "sign-up": {
    title: "Create an account",
    button: "Create account",
    passwordLabel: "Password",
    passwordHint: NEW_PASSWORD_HINT,
    passwordAutocomplete: "new-password",
    other: { text: "Already have an account?", href: "/dashboard/sign-in", link: "Sign in" },
  },
  "sign-in": {
    title: "Sign in",
    button: "Sign in",
    passwordLabel: "Password",
    passwordHint: undefined,
    passwordAutocomplete: "current-password",
    other: { text: "No account yet?", href: "/dashboard/sign-up", link: "Create one" },
  },
} as const;

/** The sign-up and sign-in forms: the same two fields, different words and target. */
export function CredentialsPage({ mode, csrf, email, errors = {}, notice }: CredentialsPageProps) {
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
        />
        <FormField
          label={text.passwordLabel}
          name="password"
          type="password"
          autocomplete={text.passwordAutocomplete}
          hint={text.passwordHint}
          error={errors.password}
        />
        <button type="submit">{text.button}</button>
      </form>
      <p>
        {text.other.text} <a href={text.other.href}>{text.other.link}</a>
      </p>
    </Layout>
  );
}
