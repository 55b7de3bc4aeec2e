// Type tests: vitest's typecheck runs them in npm test (a failure is a failed test, not only a lint
// error).
import type { FileDto as ContractFileDto } from '@ferry/contract';
import { describe, expectTypeOf, it } from 'vitest';
import type { FileDto } from '../../src/files/file-dto.js';

describe('FileDto', () => {
  it('is the shape the web app reads from @ferry/contract', () => {
    expectTypeOf<FileDto>().toEqualTypeOf<ContractFileDto>();
  });
});
