// Shapes of the Ferry HTTP API that only the app defines (apps/ferry/src/routes/*.ts and the
// OpenAPI document), as the web app reads them. Only the fields the UI uses are listed; extra
// fields are ignored. Shapes the packages define too (files, call events and answers, chat
// events) come from @ferry/contract.
import type { FerryStatus, ToolCallResponse, UserEventBody } from '@ferry/contract';

export interface MeDto {
  username: string;
  authMode: 'local' | 'proxy';
  session: string | null;
  usage: { bytes: number; count: number; quotaBytes: number | null };
  limits: { maxFileSizeBytes: number; base64SizeLimitBytes: number; persistFilesAcrossSessions: boolean };
  /** Not exposed by the API yet; read when a later version adds it. */
  sandbox?: string;
}

/** GET /api/status: the effective modes and the warnings to show, and who is asking. */
export type StatusDto = FerryStatus & { username: string };

export interface ServerDto {
  name: string;
  transport: 'stdio' | 'http' | 'sse';
  enabled: boolean;
  fileMode: 'path' | 'url' | 'data-uri';
  timeouts: { noticeSeconds: number[]; timeoutSeconds: number; hardCapSeconds: number };
  /** Not exposed by the API yet. */
  sandbox?: string;
}

export type InjectedInput = 'host' | 'file-name' | 'file-names' | 'file-picker';

export interface ToolDto {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  injected: { name: string; kind: string; input: InjectedInput; hiddenFromModel: boolean }[];
  fileInputs: { name: string; multiple: boolean; required: boolean; accept?: string[]; maxSize?: number }[];
}

export type CallStatus = 'running' | ToolCallResponse['status'];

export interface CallDetail {
  callId: string;
  server: string;
  tool: string;
  status: CallStatus;
  startedAt: string;
  finishedAt: string | null;
  lastSeq: number;
  response: ToolCallResponse | null;
}

/** GET /api/events: My Files changed (upload, rename, delete, a file stored by a tool). */
export type FilesChangedEvent = Extract<UserEventBody, { type: 'files_changed' }>;

/** GET /api/events wraps each call event: `event: call`, data `{ type: 'call', event }`. */
export type UserCallEvent = Extract<UserEventBody, { type: 'call' }>;
