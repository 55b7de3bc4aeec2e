export const V8_OPTIONS: readonly string[];
export function runFerry(args: string[]): Promise<number>;
