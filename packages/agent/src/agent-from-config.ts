// The agent from FERRY_LLM_* settings: the OpenAI-compatible client when a model is configured,
// the "not configured" agent otherwise. The API key is passed on as a secret, so it is scrubbed
// from anything a tool returns before the model reads it.
import { type Agent, type AgentOptions, createAgent } from './agent.js';
import type { AgentConfigResult } from './agent-config.js';
import { createOpenAiCompatibleModelClient } from './openai-compatible.js';

export function createAgentFromConfig(
  result: AgentConfigResult,
  deps: Omit<AgentOptions, 'model' | 'config' | 'notConfiguredReason'>,
): Agent {
  if (!result.configured)
    return createAgent({ ...deps, model: undefined, notConfiguredReason: result.reason });
  const { config } = result;
  const model = createOpenAiCompatibleModelClient({
    model: config.model,
    vision: config.vision,
    maxRetries: config.maxRetries,
    timeoutMs: config.timeoutMs,
    ...(config.baseURL ? { baseURL: config.baseURL } : {}),
    ...(config.apiKey ? { apiKey: config.apiKey } : {}),
  });
  return createAgent({
    ...deps,
    model,
    config: {
      maxToolRounds: config.maxToolRounds,
      maxResultChars: config.maxResultChars,
      visionMaxBytes: config.visionMaxBytes,
      ...(config.systemPrompt ? { systemPrompt: config.systemPrompt } : {}),
    },
    secrets: [...(deps.secrets ?? []), ...(config.apiKey ? [config.apiKey] : [])],
  });
}
