// Types of build-servers.mjs for the TypeScript that imports it (e2e/global-setup.ts).
export function serversBuildIsStale(): boolean;
export function buildServers(options?: { ifStale?: boolean; quiet?: boolean }): Promise<boolean>;
