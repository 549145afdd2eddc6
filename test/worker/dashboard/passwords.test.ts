import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { inviteAccount } from "../../../src/accounts/invites.ts";
import list from "../../../src/dashboard/common-passwords/common-passwords.txt";
import { DashboardBrowser, fieldError, uniqueEmail } from "../support/dashboard-browser.ts";
import { testServices } from "../support/keys.ts";

/** Signs up with this password; the status, the password field's sentence, and whether an account was made. */
async function signUpWith(password: string) {
  const email = uniqueEmail();
  const page = await new DashboardBrowser().signUp(email, password);
  const row = await env.DB.prepare("SELECT id FROM accounts WHERE email = ?").bind(email).first();
  return { status: page.status, error: fieldError(page.html, "password"), created: row !== null };
}

const onlySpaces = "Use a password that is not only spaces.";
const repeated = "Use a password that is not one character repeated.";
const common =
  "That password is on a list of the most common ones, which attackers try first. Choose another.";

describe("new passwords", () => {
  it("refuses one made only of white space", async () => {
    for (const password of [" ".repeat(12), "\t \n".repeat(4), "\u00a0".repeat(12)]) {
      expect(await signUpWith(password), JSON.stringify(password)).toEqual({
        status: 422,
        error: onlySpaces,
        created: false,
      });
    }
  });

  it("refuses one character repeated, letters and symbols alike", async () => {
    for (const password of ["a".repeat(12), "Z".repeat(40), "€".repeat(12), "🐶".repeat(12)]) {
      expect(await signUpWith(password), password).toEqual({
        status: 422,
        error: repeated,
        created: false,
      });
    }
  });

  it("refuses a common password in any letter case", async () => {
    for (const password of ["qwertyqwerty", "QwErTyQwErTy", "1q2w3e4r5t6y", "123456789012"]) {
      expect(await signUpWith(password), password).toEqual({
        status: 422,
        error: common,
        created: false,
      });
    }
  });

  it("says first what a person fixes first: length before anything else", async () => {
    expect((await signUpWith("password")).error).toBe("Use a password of at least 12 characters.");
    expect((await signUpWith("   ")).error).toBe("Use a password of at least 12 characters.");
  });

  it("accepts passwords that pass every rule", async () => {
    for (const password of ["correct horse battery", "abababababab", "qwertyqwerty!x"]) {
      expect(await signUpWith(password), password).toEqual({
        status: 303,
        error: undefined,
        created: true,
      });
    }
  });

  it("holds for the password an invite sets", async () => {
    const email = uniqueEmail("invited");
    const { db, config } = testServices();
    const invite = await inviteAccount(
      db,
      { email, operatorEmail: config.operatorEmail },
      Date.now(),
    );
    const browser = new DashboardBrowser();
    const path = `/dashboard/invite/${invite.token}`;
    await browser.get(path);
    for (const [password, error] of [
      [" ".repeat(12), onlySpaces],
      ["x".repeat(12), repeated],
      ["QWERTYUIOPASDF", common],
    ] as const) {
      const page = await browser.post(path, { password });
      expect(page.status).toBe(422);
      expect(fieldError(page.html, "password")).toBe(error);
    }
    expect((await browser.post(path, { password: "correct horse battery" })).status).toBe(303);
  });

  it("does not apply to signing in: an existing password is checked, not judged", async () => {
    const page = await new DashboardBrowser().signIn(uniqueEmail(), "a".repeat(12));
    expect(page.status).toBe(400);
    expect(fieldError(page.html, "password")).toBe("The email address or password is incorrect.");
  });
});

describe("the shipped list of common passwords", () => {
  const entries = list.split("\n").filter((entry) => entry !== "");

  it("is a well-known list of more than 10,000 entries", () => {
    expect(entries.length).toBeGreaterThan(10_000);
    expect(entries.slice(0, 3)).toEqual(["123qweasdzxc", "1qaz2wsx3edc", "q1w2e3r4t5y6"]);
  });

  it("holds only lower-cased entries of 12 characters or more, each once", () => {
    expect(entries.every((entry) => entry.length >= 12)).toBe(true);
    expect(entries.every((entry) => entry === entry.toLowerCase())).toBe(true);
    expect(new Set(entries).size).toBe(entries.length);
  });
});
