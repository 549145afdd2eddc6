import { expect } from "vitest";
import type { DashboardBrowser, Page } from "./dashboard-browser.ts";
import { ORIGIN } from "./request.ts";

/** The value of the page's hidden field with this name. */
export function hiddenField(html: string, name: string): string {
  const value = new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1];
  expect(value, `no ${name} field on the page`).toBeDefined();
  return (value ?? "").replaceAll("&quot;", '"');
}

/** The animal's id in the address a post led to. */
export function animalIdIn(location: string | null): number {
  const id = /^\/dashboard\/animals\/(\d+)$/.exec(location ?? "")?.[1];
  expect(id, `not an animal's page: ${location}`).toBeDefined();
  return Number(id);
}

/** Opens the new-animal form and posts it with these fields (and its one-time token). */
export async function addAnimal(
  browser: DashboardBrowser,
  fields: Record<string, string>,
): Promise<{ page: Page; formKey: string }> {
  const form = await browser.get("/dashboard/animals/new");
  expect(form.status, form.html).toBe(200);
  const formKey = hiddenField(form.html, "formKey");
  const page = await browser.post("/dashboard/animals", { formKey, ...fields });
  return { page, formKey };
}

/** Adds an animal and insists it worked: its id. */
export async function addedAnimal(
  browser: DashboardBrowser,
  fields: Record<string, string> = {},
): Promise<number> {
  const { page } = await addAnimal(browser, { name: "Biscuit", categoryId: "1", ...fields });
  expect(page.status, page.html).toBe(303);
  return animalIdIn(page.location);
}

/** Posts the animal page's photo form as a browser does: multipart, with the file. */
export async function uploadFromPage(
  browser: DashboardBrowser,
  petId: number,
  file: File,
  headers: Record<string, string> = {},
): Promise<Page> {
  const page = await browser.get(`/dashboard/animals/${petId}`);
  const body = new FormData();
  body.set("csrf", browser.csrf);
  body.set("formKey", hiddenField(page.html, "formKey"));
  body.set("photo", file);
  return browser.request(`/dashboard/animals/${petId}/photos`, {
    method: "POST",
    body,
    headers: { Origin: ORIGIN, ...headers },
  });
}
