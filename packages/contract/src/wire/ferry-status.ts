// What a Ferry runs on, as its startup summary prints it and GET /api/status returns it (the web
// app's status bar reads it): apps/ferry/src/status.ts fills it from the config and the sandbox probe.
import { z } from 'zod';
import { SANDBOX_MODES } from '../protocol/workspace-protocol.js';

const SandboxStatusSchema = z.object({
  /** The configured floor. */
  mode: z.enum(SANDBOX_MODES),
  /** What local servers get. */
  effectiveMode: z
    .enum(['sandboxed', 'unsandboxed', 'refused'])
    .describe(
      'refused: mode required without bubblewrap, every local server fails with E_SANDBOX_UNAVAILABLE',
    ),
  available: z.boolean(),
  bwrapVersion: z.string().optional(),
  /** Why the sandbox is unavailable. */
  reason: z.string().optional(),
  /** Shown loudly whenever tools are not isolated. */
  warning: z.string().optional(),
  runsAs: z
    .object({ uid: z.number(), gid: z.number(), name: z.string(), how: z.enum(['setpriv', 'userns']) })
    .optional()
    .describe('The host user sandboxed tools run as: setpriv (Ferry is root) or userns (Ferry’s own uid)'),
  sees: z
    .object({ root: z.array(z.string()), uid: z.number() })
    .optional()
    .describe('What the capability probe’s tool saw: the top level of its root, and its uid'),
  network: z
    .object({ available: z.boolean(), helper: z.string().optional(), reason: z.string().optional() })
    .optional()
    .describe('What "network": true gets: an isolated user-mode stack, or why there is none'),
  summary: z.string(),
});
export type SandboxStatus = z.infer<typeof SandboxStatusSchema>;

const FerryStatusSchema = z.object({
  version: z.string(),
  storage: z.string(),
  catalog: z.string(),
  auth: z.string(),
  llm: z.string(),
  sandbox: SandboxStatusSchema,
  /**
   * MCP Apps: the sandbox proxy page on Ferry's second origin (docs/mcp-apps.md); absent when the
   * app was built without a server.
   */
  appsSandboxUrl: z.string().optional(),
  /** Everything an operator should see: sandbox missing, local auth exposed, unknown config. */
  warnings: z.array(z.string()),
});
export type FerryStatus = z.infer<typeof FerryStatusSchema>;

/** GET /api/status: the effective modes and the warnings to show, and who is asking. */
export const StatusDtoSchema = z
  .object({ username: z.string(), ...FerryStatusSchema.shape })
  .meta({ id: 'Status' });
export type StatusDto = z.infer<typeof StatusDtoSchema>;
