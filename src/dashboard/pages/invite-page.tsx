import { CSRF_FIELD } from "../csrf.ts";
import { NEW_PASSWORD_HINT } from "../passwords.ts";
import { FormField } from "./form-field.tsx";
import { Layout } from "./layout.tsx";

export interface InvitePageProps {
  csrf: string;
  email: string;
  /** Where the form posts: the invite's own address. */
  action: string;
  error?: string;
}

/** Sets the password of an account an operator made, through its one-time link. */
export function InvitePage({ csrf, email, action, error }: InvitePageProps) {
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
        />
        <button type="submit">Set password and sign in</button>
      </form>
    </Layout>
  );
}
