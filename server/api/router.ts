import { createCallerFactory, router } from "./trpc.js";
import { productsRouter } from "./procedures/products.js";

export const appRouter = router({
  products: productsRouter,
});

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);
