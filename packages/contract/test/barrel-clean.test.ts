import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';

// The web app imports @ferry/contract, so nothing reachable from src/index.ts may need Node:
// no `node:` modules, no Buffer/process, and only these browser-safe packages.
const ALLOWED_PACKAGES = new Set(['zod', 'mime']);
const src = join(import.meta.dirname, '..', 'src');

function reachableFiles(): Map<string, string> {
  const seen = new Map<string, string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    const text = readFileSync(file, 'utf8');
    seen.set(file, text);
    for (const match of text.matchAll(
      /(?:import|export)[^'"]*?from\s+'([^']+)'|import\(\s*'([^']+)'\s*\)/g,
    )) {
      const specifier = match[1] ?? match[2] ?? '';
      if (specifier.startsWith('.')) visit(join(dirname(file), specifier.replace(/\.js$/, '.ts')));
    }
  };
  visit(join(src, 'index.ts'));
  return seen;
}

describe('the contract barrel stays browser-safe', () => {
  const files = reachableFiles();

  it('reaches every source file', () => {
    expect(files.size).toBeGreaterThanOrEqual(12);
  });

  it('imports no node: module and only allowed packages', () => {
    for (const [file, text] of files) {
      for (const match of text.matchAll(/from\s+'([^'.][^']*)'/g)) {
        const specifier = match[1] as string;
        expect(specifier.startsWith('node:'), `${file} imports ${specifier}`).toBe(false);
        expect(ALLOWED_PACKAGES.has(specifier.split('/')[0] as string), `${file} imports ${specifier}`).toBe(
          true,
        );
      }
    }
  });

  it('uses no Node globals', () => {
    for (const [file, text] of files) {
      // An optional lookup on globalThis (base64.ts uses Node's Buffer when there is one) is not a
      // need; anything else named Buffer is.
      const code = text
        .replace(/\/\/.*$/gm, '')
        .replace(/\/\*[\s\S]*?\*\//g, '')
        .replace(/\(globalThis as \{ Buffer\?: \w+ \}\)\.Buffer/g, '');
      expect(/\b(Buffer|process|require|__dirname)\b/.test(code), `${file} uses a Node global`).toBe(false);
    }
  });
});
