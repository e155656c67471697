/**
 * The router's type for TypeScript consumers (shared/client.ts), written from the operation table by
 * server/api/router-declaration.ts: do not edit; run `npx tsx server/api/router-declaration.ts`.
 */
import type {
  TRPC_ERROR_CODE_NUMBER,
  TRPCBuiltRouter,
  TRPCDecorateCreateRouterOptions,
  TRPCMutationProcedure,
  TRPCQueryProcedure,
} from "@trpc/server";
import type { z } from "zod";
import type {
  BatchLookupParamsSchema,
  BatchLookupResponseSchema,
  ChangesParamsSchema,
  ChangesResponseSchema,
  ErrorCode,
  GetProductParamsSchema,
  LookupByUrlParamsSchema,
  OffersParamsSchema,
  OffersResponseSchema,
  PricesParamsSchema,
  PricesResponseSchema,
  Problem,
  ProductEnvelopeSchema,
  ProductLookupEnvelopeSchema,
  SearchParamsSchema,
  SearchResponseSchema,
  SimilarParamsSchema,
  SimilarResponseSchema,
} from "./schemas/index.js";

export type ErrorShape = {
  message: string;
  code: TRPC_ERROR_CODE_NUMBER;
  data: {
    stack: undefined;
    code: ErrorCode;
    httpStatus: number;
    errors: Problem["errors"];
    request_id: string;
    gone_at: string | undefined;
    path?: string;
  };
};

export type AppRouter = TRPCBuiltRouter<
  { ctx: object; meta: object; errorShape: ErrorShape; transformer: false },
  TRPCDecorateCreateRouterOptions<{
    products: {
      search: TRPCQueryProcedure<{
        input: z.input<typeof SearchParamsSchema>;
        output: z.output<typeof SearchResponseSchema>;
        meta: object;
      }>;
      byId: TRPCQueryProcedure<{
        input: z.input<typeof GetProductParamsSchema>;
        output: z.output<typeof ProductEnvelopeSchema>;
        meta: object;
      }>;
      byUrl: TRPCQueryProcedure<{
        input: z.input<typeof LookupByUrlParamsSchema>;
        output: z.output<typeof ProductLookupEnvelopeSchema>;
        meta: object;
      }>;
      lookup: TRPCMutationProcedure<{
        input: z.input<typeof BatchLookupParamsSchema>;
        output: z.output<typeof BatchLookupResponseSchema>;
        meta: object;
      }>;
      changes: TRPCQueryProcedure<{
        input: z.input<typeof ChangesParamsSchema>;
        output: z.output<typeof ChangesResponseSchema>;
        meta: object;
      }>;
      offers: TRPCQueryProcedure<{
        input: z.input<typeof OffersParamsSchema>;
        output: z.output<typeof OffersResponseSchema>;
        meta: object;
      }>;
      similar: TRPCQueryProcedure<{
        input: z.input<typeof SimilarParamsSchema>;
        output: z.output<typeof SimilarResponseSchema>;
        meta: object;
      }>;
      prices: TRPCQueryProcedure<{
        input: z.input<typeof PricesParamsSchema>;
        output: z.output<typeof PricesResponseSchema>;
        meta: object;
      }>;
    };
  }>
>;
