// The model settings from the environment, validated once and frozen. FERRY_LLM_MODEL switches
// the chat on; without it the agent is "not configured" and chat answers so (503), while the
// tool runner and everything else work as before.
import { DEFAULT_MODEL_RESULT_CHARS, ENV_EXPECTED, parseEnvFlag, parseEnvNumber } from '@ferry/contract';
import { z } from 'zod';

export interface AgentConfig {
  /** @default OpenAI's API when unset */
  baseURL?: string;
  apiKey?: string;
  model: string;
  /** Give images that tools return to the model once, as an image part. @default false */
  vision: boolean;
  /** Images above this size are described by name only. @default 4 MiB */
  visionMaxBytes: number;
  /** Model requests that may call tools in one turn; then one last request without tools. @default 8 */
  maxToolRounds: number;
  /**
   * Longest tool result text given to the model. The host stores a larger result in My Files and
   * gives the model its beginning and the file's name (give the host this same number); anything
   * still longer is cut with a note. @default DEFAULT_MODEL_RESULT_CHARS (16000)
   */
  maxResultChars: number;
  /** Replaces the default system prompt. */
  systemPrompt?: string;
  /** Retries of a failed model request. @default 2 */
  maxRetries: number;
  /** Per model request. @default 600000 */
  timeoutMs: number;
}

export type AgentConfigResult =
  | { configured: true; config: Readonly<AgentConfig> }
  | { configured: false; reason: string };

const NOTHING_SET = 'set FERRY_LLM_BASE_URL and FERRY_LLM_MODEL';
const flag = z.string().transform((text, ctx) => {
  const value = parseEnvFlag(text);
  if (value === undefined) ctx.addIssue({ code: 'custom', message: `expected ${ENV_EXPECTED.flag}` });
  return value ?? false;
});
const int = (min: number, max: number) =>
  z
    .string()
    .transform((text, ctx) => {
      const value = parseEnvNumber(text);
      if (value === undefined) ctx.addIssue({ code: 'custom', message: `expected ${ENV_EXPECTED.number}` });
      return value ?? Number.NaN;
    })
    .pipe(z.number().int().min(min).max(max));

const envSchema = z.object({
  FERRY_LLM_BASE_URL: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
  FERRY_LLM_API_KEY: z.string().optional(),
  FERRY_LLM_MODEL: z.string().trim().min(1).max(200).optional(),
  FERRY_LLM_VISION: flag.optional(),
  FERRY_LLM_VISION_MAX_BYTES: int(1, 64 * 1024 * 1024).optional(),
  FERRY_LLM_MAX_TOOL_ROUNDS: int(0, 100).optional(),
  FERRY_LLM_MAX_RESULT_CHARS: int(500, 1_000_000).optional(),
  FERRY_LLM_SYSTEM_PROMPT: z.string().max(20_000).optional(),
  FERRY_LLM_MAX_RETRIES: int(0, 10).optional(),
  FERRY_LLM_TIMEOUT_MS: int(1000, 3_600_000).optional(),
});

/** Reads FERRY_LLM_*; an invalid value throws naming the variable (startup fails loudly). */
export function agentConfigFromEnv(env: Record<string, string | undefined>): AgentConfigResult {
  const present = Object.fromEntries(
    Object.keys(envSchema.shape).flatMap((key) => {
      const value = env[key];
      return value === undefined || value === '' ? [] : [[key, value]];
    }),
  );
  const parsed = envSchema.safeParse(present);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new Error(`Invalid LLM settings: ${problems.join('; ')}`);
  }
  const e = parsed.data;
  if (!e.FERRY_LLM_MODEL) {
    const partial = e.FERRY_LLM_BASE_URL !== undefined || e.FERRY_LLM_API_KEY !== undefined;
    return { configured: false, reason: partial ? 'FERRY_LLM_MODEL is not set' : NOTHING_SET };
  }
  return {
    configured: true,
    config: Object.freeze(
      agentConfig({
        model: e.FERRY_LLM_MODEL,
        ...(e.FERRY_LLM_BASE_URL ? { baseURL: e.FERRY_LLM_BASE_URL } : {}),
        ...(e.FERRY_LLM_API_KEY ? { apiKey: e.FERRY_LLM_API_KEY } : {}),
        ...(e.FERRY_LLM_VISION === undefined ? {} : { vision: e.FERRY_LLM_VISION }),
        ...(e.FERRY_LLM_VISION_MAX_BYTES === undefined
          ? {}
          : { visionMaxBytes: e.FERRY_LLM_VISION_MAX_BYTES }),
        ...(e.FERRY_LLM_MAX_TOOL_ROUNDS === undefined ? {} : { maxToolRounds: e.FERRY_LLM_MAX_TOOL_ROUNDS }),
        ...(e.FERRY_LLM_MAX_RESULT_CHARS === undefined
          ? {}
          : { maxResultChars: e.FERRY_LLM_MAX_RESULT_CHARS }),
        ...(e.FERRY_LLM_SYSTEM_PROMPT ? { systemPrompt: e.FERRY_LLM_SYSTEM_PROMPT } : {}),
        ...(e.FERRY_LLM_MAX_RETRIES === undefined ? {} : { maxRetries: e.FERRY_LLM_MAX_RETRIES }),
        ...(e.FERRY_LLM_TIMEOUT_MS === undefined ? {} : { timeoutMs: e.FERRY_LLM_TIMEOUT_MS }),
      }),
    ),
  };
}

/** Fills the defaults. */
export function agentConfig(input: Partial<AgentConfig> & { model: string }): AgentConfig {
  return {
    vision: false,
    visionMaxBytes: 4 * 1024 * 1024,
    maxToolRounds: 8,
    maxResultChars: DEFAULT_MODEL_RESULT_CHARS,
    maxRetries: 2,
    timeoutMs: 600_000,
    ...input,
  };
}

/** One line for the startup summary: model and endpoint host, never the key. */
export function describeAgentConfig(result: AgentConfigResult): string {
  if (!result.configured) {
    // Nothing set is the ordinary embedded default; a half-done setup says what is missing.
    return result.reason === NOTHING_SET ? 'not configured' : `not configured (${result.reason})`;
  }
  const { config } = result;
  let where = 'api.openai.com';
  if (config.baseURL) {
    const url = new URL(config.baseURL);
    where = `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`;
  }
  return `${config.model} at ${where}${config.vision ? ', vision on' : ''}, up to ${config.maxToolRounds} tool rounds`;
}
