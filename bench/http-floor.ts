/**
 * The floor for npm run bench:http: a bare Fastify app (no logger, no hooks,
 * no database) whose one route answers with the same JSON the real get-by-id
 * gave, held in memory. Started as a child process by bench/http.ts with the
 * body's file as its argument; prints its port on stdout.
 */
import { readFileSync } from "node:fs";
import Fastify from "fastify";

const body: unknown = JSON.parse(readFileSync(process.argv[2] ?? "", "utf8"));
const app = Fastify();
app.get("/floor/products/:id", async () => body);
const address = await app.listen({ host: "127.0.0.1", port: 0 });
process.stdout.write(`${new URL(address).port}\n`);
process.on("SIGTERM", () => void app.close().then(() => process.exit(0)));
