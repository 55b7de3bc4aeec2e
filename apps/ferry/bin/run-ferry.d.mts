export const FERRY_NODE_OPTIONS: readonly string[];
export function runFerry(args: string[]): Promise<number>;
