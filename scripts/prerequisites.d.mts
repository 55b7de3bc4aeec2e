// Types of prerequisites.mjs for the TypeScript tests that import it.
export interface Problem {
  what: string;
  why: string;
  /** Debian packages that provide what is missing. */
  packages: string[];
  /** Commands to run (as root) once the packages are there. */
  steps?: string[][];
  /** What cannot be done by a command (e.g. PostgreSQL's authentication setup). */
  advice?: string[];
}

export interface PrerequisiteOptions {
  path?: string;
  chromiumPath?: string;
  pythonPath?: string;
  isRoot?: boolean;
  canSudo?: boolean;
  isDebian?: boolean;
  install?: boolean;
  postgresUrl?: string;
  checkPostgres?: (url: string) => Promise<{ reason: string; code?: string } | undefined>;
  checkRedis?: () => Promise<string | undefined>;
  run?: (command: string[], options: { quiet: boolean }) => number;
  log?: (line: string) => void;
  error?: (line: string) => void;
}

export const DEFAULT_POSTGRES_URL: string;
export const REDIS: { host: string; port: number };
export function findProblems(options?: PrerequisiteOptions): Promise<Problem[]>;
export function ensurePrerequisites(options?: PrerequisiteOptions): Promise<number>;
