/** Embedded PGlite with pgvector, in this process: in memory, or on disk in a data dir. */
import { PGlite } from "@electric-sql/pglite";
import { vector } from "@electric-sql/pglite-pgvector";
import { drizzle } from "drizzle-orm/pglite";
import { migrate } from "drizzle-orm/pglite/migrator";
import * as schema from "./schema.js";
import type { Database } from "./client.js";
import { MIGRATIONS_FOLDER, type DatabaseHandle } from "./handle.js";
import { VECTOR_SESSION_SETTINGS } from "./vector-settings.js";

export async function openPglite(dataDir?: string): Promise<{ handle: DatabaseHandle; client: PGlite }> {
  const client = await PGlite.create(dataDir ? { dataDir, extensions: { vector } } : { extensions: { vector } });
  await client.exec(
    Object.entries(VECTOR_SESSION_SETTINGS)
      .map(([name, value]) => `SET ${name} = '${value}';`)
      .join("\n"),
  );
  // drizzle's PGlite database, seen as the driver-neutral type every query takes.
  const db = drizzle(client, { schema }) as unknown as Database;
  const handle: DatabaseHandle = {
    db,
    kind: "pglite",
    vectorSettingsInSession: true,
    read: db,
    reader: () => db,
    migrate: () => migrate(drizzle(client, { schema }), { migrationsFolder: MIGRATIONS_FOLDER }),
    close: async () => {
      if (!client.closed) await client.close();
    },
  };
  return { handle, client };
}
