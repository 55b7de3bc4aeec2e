// Type tests: vitest's typecheck runs them in npm test (a failure is a failed test, not only a lint
// error).
import { describe, expectTypeOf, it } from 'vitest';
import type { AgentMessage } from '../src/wire/agent-messages.js';
import type { ChatMessageInput } from '../src/wire/chat-api.js';

describe('the chat API’s message schema', () => {
  it('takes every message the agent stores, with its seq and createdAt (else GET would fail)', () => {
    expectTypeOf<AgentMessage & { seq: number; createdAt: string }>().toExtend<ChatMessageInput>();
  });
});
