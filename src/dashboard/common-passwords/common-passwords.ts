import list from "./common-passwords.txt";

let common: Set<string> | undefined;

/** Whether the password, in any letter case, is one of the shipped common passwords. */
export function isCommonPassword(password: string): boolean {
  common ??= new Set(list.split("\n").filter((entry) => entry !== ""));
  return common.has(password.toLowerCase());
}
