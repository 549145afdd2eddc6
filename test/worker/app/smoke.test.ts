import { expect, it } from "vitest";
import { api } from "../support/request.ts";

it("health", async () => {
  const res = await api("/health");
  expect(res.status).toBe(200);
  expect(await res.json()).toEqual({ status: "ok" });
});
