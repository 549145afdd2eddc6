import { defineConfig } from "drizzle-kit";

export default defineConfig({
  dialect: "sqlite",
  // The photos' and shelters' tables have files of their own, which schema.ts would otherwise outgrow.
  schema: ["./src/db/schema.ts", "./src/db/photos-table.ts", "./src/db/shelters-table.ts"],
  out: "./migrations",
});
