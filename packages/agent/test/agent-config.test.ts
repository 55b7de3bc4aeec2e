import { describe, expect, it } from 'vitest';
import { agentConfigFromEnv, describeAgentConfig } from '../src/agent-config.js';

describe('FERRY_LLM_* settings', () => {
  it('is not configured without a model, saying what is missing', () => {
    const none = agentConfigFromEnv({});
    expect(none).toEqual({ configured: false, reason: 'set FERRY_LLM_BASE_URL and FERRY_LLM_MODEL' });
    expect(describeAgentConfig(none)).toBe('not configured');
    const partial = agentConfigFromEnv({ FERRY_LLM_BASE_URL: 'http://127.0.0.1:11434/v1' });
    expect(partial).toEqual({ configured: false, reason: 'FERRY_LLM_MODEL is not set' });
    expect(describeAgentConfig(partial)).toBe('not configured (FERRY_LLM_MODEL is not set)');
  });

  it('reads the model, endpoint and limits, and never prints the key', () => {
    const result = agentConfigFromEnv({
      FERRY_LLM_BASE_URL: 'http://127.0.0.1:11434/v1/',
      FERRY_LLM_API_KEY: 'sk-secret-value',
      FERRY_LLM_MODEL: 'qwen3:8b',
      FERRY_LLM_VISION: 'true',
      FERRY_LLM_MAX_TOOL_ROUNDS: '3',
    });
    expect(result.configured).toBe(true);
    if (!result.configured) return;
    expect(result.config).toMatchObject({
      model: 'qwen3:8b',
      apiKey: 'sk-secret-value',
      vision: true,
      maxToolRounds: 3,
      maxResultChars: 16_000,
    });
    expect(Object.isFrozen(result.config)).toBe(true);
    const line = describeAgentConfig(result);
    expect(line).toBe('qwen3:8b at http://127.0.0.1:11434/v1, vision on, up to 3 tool rounds');
    expect(line).not.toContain('sk-secret');
  });

  it('rejects malformed values naming the variable', () => {
    expect(() => agentConfigFromEnv({ FERRY_LLM_MODEL: 'm', FERRY_LLM_BASE_URL: 'file:///etc' })).toThrow(
      /FERRY_LLM_BASE_URL: must be an http\(s\) URL/,
    );
    expect(() => agentConfigFromEnv({ FERRY_LLM_MODEL: 'm', FERRY_LLM_MAX_TOOL_ROUNDS: 'many' })).toThrow(
      /FERRY_LLM_MAX_TOOL_ROUNDS/,
    );
    expect(() => agentConfigFromEnv({ FERRY_LLM_MODEL: 'm', FERRY_LLM_VISION: 'maybe' })).toThrow(
      /FERRY_LLM_VISION/,
    );
  });
});
