import { z } from "zod";

/**
 * What an account's email address must be, wherever one is named: sign-up,
 * and the operator's routes (which `npm run key` and `npm run account` call).
 * Sign-up alone trims and lower-cases what a person typed before checking it.
 */
export const AccountEmailSchema = z
  .string()
  .max(254, "That email address is too long.")
  .pipe(z.email("Enter an email address like name@example.com."));
