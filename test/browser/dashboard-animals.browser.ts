/**
 * The shelter's back office in a real browser (headless Chromium): make a
 * shelter, add an animal with its whole profile, upload a photo from a file input and see its thumbnail, edit it
 * from a stale page and see the refusal with its current values, find it
 * in the list, remove its photo and delete it, each after asking. Every new
 * page passes axe and fits 390 px without sideways scrolling, at 390 and
 * 1280 px, and is photographed at both into .screenshots/.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type Browser, chromium, type Page } from "playwright-core";
import { expectNoAxeViolations } from "./axe.ts";
import { CHROMIUM, CHROMIUM_ARGS, requireChromium } from "./chromium.ts";
import { focused, screenshotFolder, screenshots, signUp, submit } from "./dashboard-pages.ts";
import { gradientPng } from "./gradient-png.ts";
import { startWorker, type WorkerServer } from "./worker-server.ts";

requireChromium();

let server: WorkerServer;
let browser: Browser;

before(async () => {
  server = await startWorker();
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  await screenshotFolder();
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

/** The page at 390 and 1280 px: no sideways scrolling, photographed, and nothing for axe. */
async function checked(page: Page, name: string): Promise<void> {
  await screenshots(page, name);
  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    await expectNoAxeViolations(page, `${name} at ${width} px`);
  }
}

const notice = (page: Page) => page.locator(".notice").first().textContent();

test("make a shelter, add an animal with its whole profile, photograph it, edit it from a stale page, find it, delete it", async () => {
  // axe is injected into pages whose CSP lets no other script run.
  const context = await browser.newContext({
    viewport: { width: 1280, height: 900 },
    bypassCSP: true,
  });
  const page = await context.newPage();
  await signUp(page, server.origin, `animals-${Date.now()}@example.com`);

  // A shelter: its address by its members, its place, a link that opens the point on OpenStreetMap.
  await page.getByRole("link", { name: "Your shelters" }).click();
  await page.waitForURL(`${server.origin}/dashboard/shelters`);
  await checked(page, "shelters-empty");
  await page.getByRole("link", { name: "Add a shelter" }).click();
  await page.waitForURL(/\/shelters\/new$/);
  await checked(page, "shelter-new");
  await page.getByLabel("Name").fill("Happy Tails Rescue");
  await page.getByLabel("Email").fill("hello@happytails.example");
  await page.getByLabel("Street and number (optional)").fill("1 Park Lane");
  await page.getByLabel("Town or city").fill("London");
  await page.getByLabel("Postal code (optional)").fill("W1K 1AA");
  await page.getByLabel("Country").selectOption("GB");
  await page.getByLabel("Latitude").fill("91");
  await page.getByLabel("Longitude").fill("-0.1276");
  await submit(page, page.getByRole("button", { name: "Add the shelter" }));
  assert.equal(await focused(page), "latitude");
  await checked(page, "shelter-new-refused");
  await page.getByLabel("Latitude").fill("51.5072");
  await submit(page, page.getByRole("button", { name: "Add the shelter" }));
  await page.waitForURL(/\/dashboard\/shelters\/\d+$/);
  const shelterPage = page.url();
  assert.match((await notice(page)) ?? "", /Happy Tails Rescue is added/);
  const map = page.getByRole("link", { name: "open on OpenStreetMap" });
  assert.equal(
    await map.getAttribute("href"),
    "https://www.openstreetmap.org/?mlat=51.5072&mlon=-0.1276#map=16/51.5072/-0.1276",
  );
  await checked(page, "shelter");
  await page.getByRole("link", { name: "Edit" }).click();
  await page.waitForURL(/\/shelters\/\d+\/edit$/);
  await checked(page, "shelter-edit");
  await page.goto(`${shelterPage}/delete`);
  await checked(page, "shelter-delete-confirm");
  await page.goto(`${server.origin}/dashboard/shelters`);
  await checked(page, "shelters");

  await page.goto(`${server.origin}/dashboard/account`);
  await page.getByRole("link", { name: "Your animals" }).click();
  await page.waitForURL(`${server.origin}/dashboard/animals`);
  await checked(page, "animals-empty");

  // A refused form comes back with the focus on its first field in error.
  await page.getByRole("link", { name: "Add an animal" }).click();
  await page.waitForURL(/\/animals\/new$/);
  await checked(page, "animal-new");
  await page.getByLabel("Name").fill("   ");
  await page.getByLabel("Category").selectOption({ label: "Dogs" });
  await submit(page, page.getByRole("button", { name: "Add the animal" }));
  assert.equal(await focused(page), "name");
  await checked(page, "animal-new-refused");

  await page.getByLabel("Name").fill("Biscuit");
  await page.getByLabel("Category").selectOption({ label: "Dogs" });
  await page.getByLabel("Status").selectOption("pending");
  await page.getByLabel("Shelter").selectOption({ label: "Happy Tails Rescue" });
  await page.getByLabel("Breed (optional)").fill("Labrador Retriever");
  await page.getByLabel("Age").selectOption("young");
  await page.getByLabel("Sex").selectOption("female");
  await page.getByLabel("Size when grown").selectOption("large");
  for (const [legend, answer] of [
    ["Good with children", "Yes"],
    ["Good with dogs", "Yes"],
    ["Good with cats", "No"],
    ["House-trained", "Yes"],
    ["Has special needs", "No"],
    ["Spayed or neutered", "Not known"],
  ] as const) {
    await page.getByRole("group", { name: legend }).getByLabel(answer, { exact: true }).check();
  }
  await page.getByLabel("Description (optional)").fill("Loves long walks.\nSleeps all afternoon.");
  await submit(page, page.getByRole("button", { name: "Add the animal" }));
  await page.waitForURL(/\/dashboard\/animals\/\d+$/);
  const animalPage = page.url();
  assert.match((await notice(page)) ?? "", /Biscuit is added/);
  assert.equal(
    await page.getByTestId("animal-status").textContent(),
    "Pending (an adoption is under way)",
  );
  const facts = (await page.locator(".facts").textContent()) ?? "";
  for (const shown of ["Happy Tails Rescue", "Labrador Retriever", "Young", "Female", "Large"]) {
    assert.ok(facts.includes(shown), `the animal's page shows ${shown}`);
  }
  assert.match(facts, /Good with cats\s*No/);
  assert.match(facts, /Spayed or neutered\s*Not known/);

  // A photo from the file input, shown as a thumbnail from its public address.
  for (const [i, name] of ["first.png", "second.png"].entries()) {
    await page.getByLabel("Add a photo").setInputFiles({
      name,
      mimeType: "image/png",
      buffer: gradientPng(96 + i * 32),
    });
    await submit(page, page.getByRole("button", { name: "Upload the photo" }));
    assert.match((await notice(page)) ?? "", /The photo is added to Biscuit/);
  }
  const thumbnail = page.getByRole("img", { name: "Biscuit, 1 of 2" });
  await thumbnail.waitFor();
  assert.match((await thumbnail.getAttribute("src")) ?? "", /\/photos\/[\w-]+$/);
  const loaded = await thumbnail.evaluate(
    (img: HTMLImageElement) => img.complete && img.naturalWidth > 0,
  );
  assert.ok(loaded, "the thumbnail loaded from its public address");
  await checked(page, "animal-with-photos");

  // Two tabs open the edit form; the second saves what the first no longer shows.
  const stale = await context.newPage();
  await stale.goto(`${animalPage}/edit`);
  await page.getByRole("link", { name: "Edit" }).click();
  await page.waitForURL(/\/animals\/\d+\/edit$/);
  await checked(page, "animal-edit");
  await page.getByLabel("Name").fill("Biscuit the Brave");
  await submit(page, page.getByRole("button", { name: "Save changes" }));
  assert.match((await notice(page)) ?? "", /Biscuit the Brave is saved/);

  await stale.getByLabel("Name").fill("Crumb");
  await stale.getByLabel("Status").selectOption("sold");
  await submit(stale, stale.getByRole("button", { name: "Save changes" }));
  assert.match(
    (await stale.getByTestId("form-error").textContent()) ?? "",
    /Someone changed this animal after you opened this form/,
  );
  assert.equal(await stale.getByLabel("Name").inputValue(), "Biscuit the Brave");
  assert.equal(await stale.getByLabel("Status").inputValue(), "pending");
  await stale.setViewportSize({ width: 1280, height: 900 });
  await checked(stale, "animal-edit-refused");
  await stale.close();

  // The list finds it by a word of its name, its status, and its profile.
  await page.goto(`${server.origin}/dashboard/animals`);
  await page.getByLabel("Name").fill("brave");
  await page.getByLabel("Status").selectOption("pending");
  await page.getByText("More filters").click();
  await page.getByLabel("Age").selectOption("young");
  await page.getByLabel("Good with children").selectOption("true");
  await submit(page, page.getByRole("button", { name: "Find" }));
  assert.equal(await page.getByRole("link", { name: "Biscuit the Brave" }).count(), 1);
  await checked(page, "animals-found");

  // Remove a photo, then delete the animal, each after asking.
  await page.goto(animalPage);
  await page.getByRole("link", { name: "Remove photo 1" }).click();
  await page.waitForURL(/\/photos\/[\w-]+\/delete$/);
  await checked(page, "photo-remove-confirm");
  await submit(page, page.getByRole("button", { name: "Remove the photo" }));
  assert.match((await notice(page)) ?? "", /The photo is removed from Biscuit the Brave/);
  assert.equal(await page.locator(".thumbs img").count(), 1);

  await page.getByRole("link", { name: "Delete" }).click();
  await page.waitForURL(/\/delete$/);
  await checked(page, "animal-delete-confirm");
  await submit(page, page.getByRole("button", { name: "Delete the animal" }));
  await page.waitForURL(`${server.origin}/dashboard/animals`);
  assert.match((await notice(page)) ?? "", /Biscuit the Brave is deleted/);
  await context.close();
});
