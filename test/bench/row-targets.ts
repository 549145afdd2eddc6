import type { Caller } from "./callers.ts";
import type { Send } from "./flows.ts";
import type { Target } from "./measure.ts";
import type { BenchRow, Seeded } from "./row-kinds.ts";

/** A server the rows load: where it listens, what seeding left on it, and how to send it one request. */
export interface RowServer {
  origin: string;
  seeded: Seeded;
  send: Send;
}

export interface RowServers {
  /** The API, with each caller's key. */
  api: RowServer & { keys: Record<Caller, string> };
  floor: RowServer;
}

/** The id of a row's `index`th floor target: `get-floor`, or `create-floor-2` when it has two. */
export function floorId(row: BenchRow, index: number): string {
  return row.floors.length === 1 ? `${row.id}-floor` : `${row.id}-floor-${index + 1}`;
}

/**
 * The loads of the rows: each endpoint with its caller's key on the API,
 * and beside it each of its floors on the floor server, without a key.
 * Rows of the other tier are loaded in the first `otherRounds` rounds only.
 */
export function rowTargets(
  rows: readonly BenchRow[],
  { api, floor }: RowServers,
  otherRounds: number,
): Target[] {
  const tidy = (row: BenchRow, server: RowServer) => {
    const { tidy: undo } = row;
    return undo ? { tidy: () => undo(server.send, server.seeded) } : {};
  };
  return rows.flatMap((row) => {
    const limits = {
      ...(row.tier === "other" ? { rounds: otherRounds } : {}),
      ...(row.connections === undefined ? {} : { connections: row.connections }),
    };
    const floors = row.floors.map(
      (rowFloor, index): Target => ({
        id: floorId(row, index),
        label: rowFloor.label,
        isFloor: true,
        ...limits,
        origin: floor.origin,
        ...tidy(row, floor),
        flow: (rowFloor.flow ?? row.flow)(floor.seeded),
      }),
    );
    const endpoint: Target = {
      id: row.id,
      label: row.label,
      floors: floors.map((target) => target.id),
      ...limits,
      origin: api.origin,
      ...tidy(row, api),
      headers: { Authorization: `Bearer ${api.keys[row.caller]}` },
      flow: row.flow(api.seeded),
    };
    return [...floors, endpoint];
  });
}
