// Types of build-web.mjs for the TypeScript tests that import it.
export function webBuildIsStale(): boolean;
export function buildWeb(options?: { ifStale?: boolean; quiet?: boolean; outDir?: string }): boolean;
