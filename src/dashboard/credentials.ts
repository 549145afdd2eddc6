import { z } from "zod";
import { AccountEmailSchema } from "../accounts/account-email.ts";
import { normaliseEmail } from "../accounts/accounts.queries.ts";
import { fromBase64Url, toBase64Url } from "../utils/base64url.ts";
import { utf8Encoder } from "../utils/utf8.ts";
import commonPasswordList from "./common-passwords/common-passwords.txt";

/**
 * The most one PBKDF2 call may do on Cloudflare: deployed Workers refuse more
 * ("iteration counts above 100000 are not supported"), although local workerd
 * does not enforce that cap, so a test pins the number instead.
 */
export const PBKDF2_ITERATIONS = 100_000;
const PASSWORD_MIN_LENGTH = 12;
const PASSWORD_MAX_LENGTH = 1_000;
/** What the forms that set a password say it needs. */
export const NEW_PASSWORD_HINT = `At least ${PASSWORD_MIN_LENGTH} characters, and not a common password: a few unrelated words make a good one.`;
const SCHEME = "pbkdf2-sha256";

let commonPasswords: Set<string> | undefined;

/**
 * What a new password must be, on sign-up and when an invite sets one. The
 * field shows the first rule that fails, so the order is the order a person
 * fixes them in. The common list is compared in any letter case.
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
  .refine((password) => {
    commonPasswords ??= new Set(commonPasswordList.split("\n").filter((entry) => entry !== ""));
    return !commonPasswords.has(password.toLowerCase());
  }, "That password is on a list of the most common ones, which attackers try first. Choose another.");

const enterEmail = "Enter your email address.";
const EmailSchema = z
  .string({ error: enterEmail })
  .transform(normaliseEmail)
  .pipe(z.string().min(1, enterEmail));

const CredentialsSchemas = {
  "sign-up": z.object({ email: EmailSchema.pipe(AccountEmailSchema), password: NewPasswordSchema }),
  "sign-in": z.object({
    email: EmailSchema,
    password: z.string({ error: "Enter your password." }).min(1, "Enter your password."),
  }),
};

export type CredentialsMode = keyof typeof CredentialsSchemas;
export type CredentialErrors = { email?: string; password?: string; form?: string };

/** Checks a sign-up or sign-in form; each error is a sentence for the field it concerns. */
export function parseCredentials(
  mode: CredentialsMode,
  form: Record<string, unknown>,
): { ok: true; email: string; password: string } | { ok: false; errors: CredentialErrors } {
  const result = CredentialsSchemas[mode].safeParse({ email: form.email, password: form.password });
  if (result.success) return { ok: true, ...result.data };
  const errors: CredentialErrors = {};
  for (const issue of result.error.issues) {
    const field = issue.path[0];
    if ((field === "email" || field === "password") && !errors[field])
      errors[field] = issue.message;
  }
  return { ok: false, errors };
}

/** The password an invite's form sets, or the sentence that says what is wrong with it. */
export function parseNewPassword(
  form: Record<string, unknown>,
): { ok: true; password: string } | { ok: false; error: string } {
  const result = NewPasswordSchema.safeParse(form.password);
  if (result.success) return { ok: true, password: result.data };
  return { ok: false, error: result.error.issues[0]?.message ?? "Choose a password." };
}

async function derive(
  password: string,
  salt: Uint8Array<ArrayBuffer>,
  iterations: number,
): Promise<Uint8Array<ArrayBuffer>> {
  const material = await crypto.subtle.importKey(
    "raw",
    utf8Encoder.encode(password.normalize("NFC")),
    "PBKDF2",
    false,
    ["deriveBits"],
  );
  const bits = await crypto.subtle.deriveBits(
    { name: "PBKDF2", hash: "SHA-256", salt, iterations },
    material,
    256,
  );
  return new Uint8Array(bits);
}

/** `pbkdf2-sha256$<iterations>$<salt>$<hash>`: the parameters travel with the hash, so they can change later. */
export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.getRandomValues(new Uint8Array(16));
  const hash = await derive(password, salt, PBKDF2_ITERATIONS);
  return [SCHEME, PBKDF2_ITERATIONS, toBase64Url(salt), toBase64Url(hash)].join("$");
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, iterationsText, saltText, hashText] = stored.split("$");
  const iterations = Number(iterationsText);
  const salt = fromBase64Url(saltText ?? "");
  const expected = fromBase64Url(hashText ?? "");
  if (scheme !== SCHEME || !Number.isInteger(iterations) || !salt || !expected) return false;
  const actual = await derive(password, salt, iterations);
  return (
    actual.byteLength === expected.byteLength && crypto.subtle.timingSafeEqual(actual, expected)
  );
}

let decoy: string | undefined;

/** Spends the same time as a real check, so a sign-in for an unknown email is not told apart by speed. */
export async function verifyAgainstDecoy(password: string): Promise<false> {
  decoy ??= await hashPassword("decoy password for unknown accounts");
  await verifyPassword(password, decoy);
  return false;
}
