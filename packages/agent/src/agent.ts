// The agent as the API holds it: a model client (or none: "not configured") plus the host and
// My Files. Conversations are stored by the caller (the API), which hands the history in and
// persists what `persist` receives; the agent itself keeps no state between turns.
import { DEFAULT_MODEL_RESULT_CHARS } from '@ferry/contract';
import type { AgentConfig } from './agent-config.js';
import type { FileBlockOptions } from './file-block.js';
import type { AgentFiles } from './fill-file-inputs.js';
import type { ModelClient } from './model-client.js';
import type { AgentHost } from './model-tools.js';
import { runTurn, type TurnInput, type TurnResult } from './run-turn.js';

export const DEFAULT_SYSTEM_PROMPT = [
  "You are the assistant of Ferry, a host that runs tools on the user's files.",
  'Every user message ends with a [SYSTEM: Available files …] block listing the files the user has; refer to files by those names.',
  'To work on a file, call a tool with its name in the filename/filenames argument: Ferry hands the file to the tool.',
  'Never ask for or write file contents as base64, and never invent paths.',
  "Files that tools produce are saved to the user's files automatically and shown to the user; mention them by name.",
].join(' ');

export interface AgentOptions {
  /** Undefined: no model is configured, and every turn is refused with {@link AgentNotConfiguredError}. */
  model: ModelClient | undefined;
  host: AgentHost;
  files: AgentFiles;
  config?: Partial<Pick<AgentConfig, 'maxToolRounds' | 'maxResultChars' | 'visionMaxBytes' | 'systemPrompt'>>;
  /** Tool calls run at once for one model answer; more are refused to the model. @default 8 */
  maxCallsPerRound?: number;
  fileBlock?: FileBlockOptions;
  /** Host directories never to show the model (data dir, workspaces root). */
  hostPaths?: readonly string[];
  /** Strings never to show the model (the API key). */
  secrets?: readonly string[];
  /** Why the model is not configured, for the error message. */
  notConfiguredReason?: string;
}

export interface Agent {
  readonly configured: boolean;
  /** The model's name; undefined when not configured. */
  readonly model: string | undefined;
  runTurn(input: TurnInput): Promise<TurnResult>;
}

export class AgentNotConfiguredError extends Error {
  override readonly name = 'AgentNotConfiguredError';
}

export function createAgent(options: AgentOptions): Agent {
  const { model } = options;
  const config = options.config ?? {};
  return {
    configured: model !== undefined,
    model: model?.model,
    runTurn(input) {
      if (!model) {
        return Promise.reject(
          new AgentNotConfiguredError(
            `No model configured${options.notConfiguredReason ? `: ${options.notConfiguredReason}` : ''}. Set FERRY_LLM_BASE_URL, FERRY_LLM_MODEL and, if the endpoint needs one, FERRY_LLM_API_KEY.`,
          ),
        );
      }
      return runTurn(input, {
        model,
        host: input.host ?? options.host,
        files: options.files,
        systemPrompt: config.systemPrompt ?? DEFAULT_SYSTEM_PROMPT,
        maxToolRounds: config.maxToolRounds ?? 8,
        maxResultChars: config.maxResultChars ?? DEFAULT_MODEL_RESULT_CHARS,
        maxCallsPerRound: options.maxCallsPerRound ?? 8,
        visionMaxBytes: config.visionMaxBytes ?? 4 * 1024 * 1024,
        fileBlock: options.fileBlock ?? {},
        scrub: { hostPaths: options.hostPaths ?? [], secrets: options.secrets ?? [] },
      });
    },
  };
}
