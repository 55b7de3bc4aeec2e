// What a turn reports while it runs, in order; the chat API streams these as server-sent events.
// The shapes are the contract's, because the web app reads the same stream.
export type { AgentEvent, TurnStatus } from '@ferry/contract';
