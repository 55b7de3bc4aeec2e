// Types of bundle-budget.mjs for the TypeScript test that imports it.
export const INITIAL_JS_BUDGET_BYTES: number;

export interface InitialJsReport {
  files: { file: string; bytes: number; gzip: number }[];
  totalBytes: number;
  totalGzip: number;
  budget: number;
}

export function initialScripts(dist: string): string[];
export function measureInitialJs(dist: string): InitialJsReport;
export function formatReport(report: InitialJsReport): string;
