import type { FileDto as ContractFileDto } from '@ferry/contract';
import { describe, expectTypeOf, it } from 'vitest';
import type { FileDto } from '../../src/files/file-dto.js';

describe('FileDto', () => {
  it('is the shape the web app reads from @ferry/contract', () => {
    // Checked by tsc (npm run lint): the response schema and the contract's wire type agree.
    expectTypeOf<FileDto>().toEqualTypeOf<ContractFileDto>();
  });
});
