import { floorKeySql, orderAnimalsSql } from "./order-animals.ts";
import { FLOOR_CONFIG, wrangler } from "./servers.ts";

/**
 * Adds the animals the order targets adopt to both databases, after the
 * migrations and before the servers start (so their ids are 1 to N), and the
 * floor's key with its account. The real Worker's key is the bench key.
 */
export async function seedOrderAnimals(apiState: string, floorState: string): Promise<void> {
  const execute = (state: string, sql: string, config: string[] = []) =>
    wrangler([
      "d1",
      "execute",
      "DB",
      "--local",
      "--persist-to",
      state,
      ...config,
      "--command",
      sql,
    ]);
  await Promise.all([
    execute(apiState, orderAnimalsSql()),
    execute(floorState, `${orderAnimalsSql()}\n${floorKeySql()}`, ["--config", FLOOR_CONFIG]),
  ]);
}
