import { z } from "zod";
import { AccountEmailSchema } from "../accounts/account-email.ts";
import { normaliseEmail } from "../accounts/accounts.queries.ts";
import { isCommonPassword } from "./common-passwords/common-passwords.ts";
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from "./passwords.ts";

export interface CredentialErrors {
  email?: string;
  password?: string;
  form?: string;
}

export type CredentialsResult =
  | { ok: true; email: string; password: string }
  | { ok: false; email: string; errors: CredentialErrors };

const enterEmail = "Enter your email address.";

/**
 * What a new password must be, on sign-up and when an invite sets one. The
 * field shows the first rule that fails, so the order is the order a person
 * fixes them in.
 */
const NewPasswordSchema = z
  .string({ error: "Choose a password." })
  .min(PASSWORD_MIN_LENGTH, `Use a password of at least ${PASSWORD_MIN_LENGTH} characters.`)
  .max(PASSWORD_MAX_LENGTH, `Use a password of at most ${PASSWORD_MAX_LENGTH} characters.`)
  .refine((password) => !/^\s*$/u.test(password), "Use a password that is not only spaces.")
  .refine(
    (password) => new Set(password).size > 1,
    "Use a password that is not one character repeated.",
  )
  .refine(
    (password) => !isCommonPassword(password),
    "That password is on a list of the most common ones, which attackers try first. Choose another.",
  );

const SignUpSchema = z.object({
  email: z
    .string({ error: enterEmail })
    .transform(normaliseEmail)
    .pipe(z.string().min(1, enterEmail))
    .pipe(AccountEmailSchema),
  password: NewPasswordSchema,
});

const SignInSchema = z.object({
  email: z
    .string({ error: enterEmail })
    .transform(normaliseEmail)
    .pipe(z.string().min(1, enterEmail)),
  password: z.string({ error: "Enter your password." }).min(1, "Enter your password."),
});

function parse(
  schema: typeof SignUpSchema | typeof SignInSchema,
  form: Record<string, unknown>,
): CredentialsResult {
  const result = schema.safeParse({ email: form.email, password: form.password });
  if (result.success) return { ok: true, ...result.data };
  const errors: CredentialErrors = {};
  for (const issue of result.error.issues) {
    const field = issue.path[0];
    if ((field === "email" || field === "password") && !errors[field])
      errors[field] = issue.message;
  }
  return { ok: false, email: typeof form.email === "string" ? form.email : "", errors };
}

/** Checks a sign-up form; each error is a sentence for the field it concerns. */
export function parseSignUp(form: Record<string, unknown>): CredentialsResult {
  return parse(SignUpSchema, form);
}

export function parseSignIn(form: Record<string, unknown>): CredentialsResult {
  return parse(SignInSchema, form);
}

/** The password an invite's form sets, or the sentence that says what is wrong with it. */
export function parseNewPassword(
  form: Record<string, unknown>,
): { ok: true; password: string } | { ok: false; error: string } {
  const result = NewPasswordSchema.safeParse(form.password);
  if (result.success) return { ok: true, password: result.data };
  return { ok: false, error: result.error.issues[0]?.message ?? "Choose a password." };
}
