import { operations } from "./operations/index.js";
import { proceduresFrom, router } from "./trpc.js";

/** The router every transport serves, derived from the operation table. */
export const appRouter = router(proceduresFrom(operations));

export type AppRouter = typeof appRouter;
