// What several routes share beyond the wire shapes (@ferry/contract, src/wire/): the 4xx/5xx
// responses each route lists in the OpenAPI document, and the `:id` path parameter.
import { ErrorEnvelopeSchema, IdSchema } from '@ferry/contract';
import { z } from 'zod';

export const errorResponses = {
  '4xx': ErrorEnvelopeSchema,
  '5xx': ErrorEnvelopeSchema,
} as const;

export const IdParamsSchema = z.object({ id: IdSchema });
