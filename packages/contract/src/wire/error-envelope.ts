// The v2.1 §12 error envelope every failure of the API answers with (and a tool may return), and
// the codes of ERROR_CODES as a schema. errors.ts builds envelopes; this is their shape.
import { z } from 'zod';
import { ERROR_CODES, type FerryErrorCode } from './errors.js';

export const ErrorEnvelopeSchema = z
  .object({
    results: z.object({ error: z.string() }),
    meta_data: z.object({
      is_error: z.literal(true),
      reason: z.string(),
      error_code: z.string().describe('E_INVALID_INPUT, E_FILE_TOO_LARGE, E_UNAUTHORIZED, …'),
      details: z.record(z.string(), z.unknown()),
      retryable: z.boolean(),
    }),
  })
  .meta({ id: 'ErrorEnvelope', description: 'Tool contract v2.1 §12 error envelope' });

/** The v2.1 §12 error envelope, exactly as a tool would return it. */
export type ErrorEnvelope = z.infer<typeof ErrorEnvelopeSchema>;

/** One of Ferry's own codes (ERROR_CODES). */
export const FerryErrorCodeSchema = z.enum(Object.keys(ERROR_CODES) as [FerryErrorCode, ...FerryErrorCode[]]);
