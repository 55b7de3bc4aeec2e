// The running apps of the canvas, by tab key: closing a tab asks its app to tear down first
// (`ui/resource-teardown`, answered or timed out) and only then removes the frame.
const teardowns = new Map<string, (reason: string) => Promise<void>>();

export function registerAppTeardown(key: string, teardown: (reason: string) => Promise<void>): () => void {
  teardowns.set(key, teardown);
  return () => {
    if (teardowns.get(key) === teardown) teardowns.delete(key);
  };
}

/** Resolves once the app of `key` (if one runs) has answered its teardown or timed out. */
export async function teardownApp(key: string, reason: string): Promise<void> {
  const teardown = teardowns.get(key);
  teardowns.delete(key);
  await teardown?.(reason).catch(() => undefined);
}

export interface SandboxInfo {
  /** The sandbox proxy page (another origin than Ferry's); null: this Ferry serves no apps. */
  proxyUrl: string | null;
  version: string;
}

let sandbox: Promise<SandboxInfo> | null = null;

/** Where apps are sandboxed, from GET /api/status (asked once per page). */
export function sandboxInfo(
  load: () => Promise<{ appsSandboxUrl?: string; version: string }>,
): Promise<SandboxInfo> {
  sandbox ??= load().then(
    (status) => ({ proxyUrl: status.appsSandboxUrl ?? null, version: status.version }),
    (error: unknown) => {
      sandbox = null;
      throw error;
    },
  );
  return sandbox;
}
