import { defineConfig } from "drizzle-kit";

export default defineConfig({
  dialect: "sqlite",
  // The photos' table has a file of its own, which schema.ts would otherwise outgrow.
  schema: ["./src/db/schema.ts", "./src/db/photos-table.ts"],
  out: "./migrations",
});
