import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { addedAnimal, uploadFromPage } from "../support/dashboard-animals.ts";
import { autofocused, DashboardBrowser } from "../support/dashboard-browser.ts";
import { hasObject, imageOf, photoRowsOf, publicStatus } from "../support/photos.ts";
import { api, ORIGIN } from "../support/request.ts";

const MiB = 1024 * 1024;

async function withAnimal(): Promise<{ browser: DashboardBrowser; id: number }> {
  const browser = new DashboardBrowser();
  await browser.newAccount();
  return { browser, id: await addedAnimal(browser, { name: "Pictured" }) };
}

/** The addresses of the thumbnails the page shows. */
function thumbnails(html: string): string[] {
  return [...html.matchAll(/<img src="([^"]+)" alt="Pictured, \d+ of \d+"/g)].map(
    (m) => m[1] ?? "",
  );
}

describe("photos from the animal's page", () => {
  it("offers a file input for the three formats, in a multipart form ending in /photos", async () => {
    const { browser, id } = await withAnimal();
    const page = await browser.get(`/dashboard/animals/${id}`);
    expect(page.html).toContain(
      `action="/dashboard/animals/${id}/photos" enctype="multipart/form-data"`,
    );
    expect(page.html).toContain('type="file" accept="image/jpeg,image/png,image/webp"');
    expect(page.response.headers.get("Content-Security-Policy")).toContain(`img-src ${ORIGIN}`);
  });

  it("uploads one through the API's change, shown as a thumbnail from its public address", async () => {
    const { browser, id } = await withAnimal();
    // Named as a phone might, and sent with a type the browser guessed: the signature decides.
    const file = new File([imageOf("image/png", 2048, 7)], "IMG_0001.jpg", { type: "image/jpeg" });
    const posted = await uploadFromPage(browser, id, file);
    expect(posted.status, posted.html).toBe(303);
    expect(posted.location).toBe(`/dashboard/animals/${id}`);
    const page = await browser.get(`/dashboard/animals/${id}`);
    expect(page.html).toContain("The photo is added to Pictured.");
    const [url] = thumbnails(page.html);
    expect(url).toMatch(new RegExp(`^${ORIGIN}/photos/[\\w-]+$`));
    expect(await publicStatus(url ?? "")).toBe(200);
    expect((await photoRowsOf(id)).map((row) => row.state)).toEqual(["confirmed"]);
    const served = await api(new URL(url ?? "", ORIGIN).pathname);
    expect(served.headers.get("Content-Type")).toBe("image/png");
    await served.arrayBuffer();
  });

  it("a double submit of one upload form adds one photo", async () => {
    const { browser, id } = await withAnimal();
    const page = await browser.get(`/dashboard/animals/${id}`);
    const formKey = /name="formKey" value="([^"]+)"/.exec(page.html)?.[1] ?? "";
    const send = () => {
      const body = new FormData();
      body.set("csrf", browser.csrf);
      body.set("formKey", formKey);
      body.set("photo", new File([imageOf("image/jpeg", 512, 3)], "a.jpg"));
      return browser.request(`/dashboard/animals/${id}/photos`, {
        method: "POST",
        body,
        headers: { Origin: ORIGIN },
      });
    };
    expect((await send()).status).toBe(303);
    expect((await send()).status).toBe(303);
    expect(await photoRowsOf(id)).toHaveLength(1);
  });

  it("refuses a file that is not JPEG, PNG or WebP by its bytes, whatever its name", async () => {
    const { browser, id } = await withAnimal();
    const file = new File(["GIF89a not welcome"], "cat.jpg", { type: "image/jpeg" });
    const page = await uploadFromPage(browser, id, file);
    expect(page.status).toBe(415);
    expect(page.html).toContain("This file is not a JPEG, PNG or WebP image.");
    expect(autofocused(page.html)).toBe("photo");
    expect(await photoRowsOf(id)).toHaveLength(0);
  });

  it("refuses a photo over 5 MiB with a notice to send a smaller one, before storing it", async () => {
    const { browser, id } = await withAnimal();
    const big = new File([imageOf("image/jpeg", 5 * MiB + 1)], "huge.jpg", { type: "image/jpeg" });
    const page = await uploadFromPage(browser, id, big);
    expect(page.status).toBe(413);
    expect(page.html).toContain("This photo is larger than 5 MiB");
    expect(page.html).toContain("Send a smaller one");
    expect(await photoRowsOf(id)).toHaveLength(0);
  });

  it("refuses an upload that announces more than 5 MiB and the form without reading it", async () => {
    const { browser, id } = await withAnimal();
    await browser.get(`/dashboard/animals/${id}`);
    let pulled = 0;
    // A body that counts what is read of it: the refusal must come before any of it is.
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += 1;
        controller.enqueue(new Uint8Array(64 * 1024));
        if (pulled === 96) controller.close();
      },
    });
    const page = await browser.request(`/dashboard/animals/${id}/photos`, {
      method: "POST",
      body,
      duplex: "half",
      headers: {
        Origin: ORIGIN,
        "Content-Type": "multipart/form-data; boundary=xyz",
        "Content-Length": String(6 * MiB),
      },
    } as RequestInit);
    expect(page.status).toBe(413);
    expect(page.html).toContain("This photo is larger than 5 MiB");
    // The stream's own read-ahead aside, the 96 chunks of its 6 MiB were never read.
    expect(pulled).toBeLessThan(8);
    expect(await photoRowsOf(id)).toHaveLength(0);
  });

  it("refuses the eleventh photo with the reason", async () => {
    const { browser, id } = await withAnimal();
    for (let i = 0; i < 10; i++) {
      const file = new File([imageOf("image/webp", 300, i)], `${i}.webp`);
      expect((await uploadFromPage(browser, id, file)).status).toBe(303);
    }
    const full = await browser.get(`/dashboard/animals/${id}`);
    expect(thumbnails(full.html)).toHaveLength(10);
    expect(full.html).toContain("the most it may have: remove one to add another");
    expect(full.html).not.toContain('type="file"');
  });

  it("removes a photo after asking, and its object with it", async () => {
    const { browser, id } = await withAnimal();
    await uploadFromPage(browser, id, new File([imageOf("image/jpeg", 400, 1)], "a.jpg"));
    const [row] = await photoRowsOf(id);
    const photoId = row?.id ?? "";
    const confirm = await browser.get(`/dashboard/animals/${id}/photos/${photoId}/delete`);
    expect(confirm.status).toBe(200);
    expect(confirm.html).toContain("Remove the photo");
    const removed = await browser.post(`/dashboard/animals/${id}/photos/${photoId}/delete`);
    expect(removed.status).toBe(303);
    const page = await browser.get(`/dashboard/animals/${id}`);
    expect(page.html).toContain("The photo is removed from Pictured.");
    expect(thumbnails(page.html)).toHaveLength(0);
    expect(await hasObject(photoId)).toBe(false);
  });

  it("another account can neither upload to the animal nor remove its photos", async () => {
    const { browser, id } = await withAnimal();
    await uploadFromPage(browser, id, new File([imageOf("image/jpeg", 400, 2)], "a.jpg"));
    const [row] = await photoRowsOf(id);
    const other = new DashboardBrowser();
    await other.newAccount();
    const body = new FormData();
    body.set("csrf", other.csrf);
    body.set("photo", new File([imageOf("image/jpeg", 400, 5)], "b.jpg"));
    const upload = await other.request(`/dashboard/animals/${id}/photos`, {
      method: "POST",
      body,
      headers: { Origin: ORIGIN },
    });
    expect(upload.status).toBe(404);
    const path = `/dashboard/animals/${id}/photos/${row?.id}/delete`;
    expect((await other.get(path)).status).toBe(404);
    expect((await other.post(path)).status).toBe(404);
    expect(await photoRowsOf(id)).toHaveLength(1);
    const stored = await env.PHOTOS.head(row?.id ?? "");
    expect(stored).not.toBeNull();
  });
});
