import { FerryError } from '@ferry/contract';

// The errors the catalog raises for a caller's mistake; anything else is a driver error and
// propagates as it is.

export function requireText(field: string, value: unknown): void {
  if (typeof value !== 'string' || value === '') {
    throw new FerryError('E_INVALID_INPUT', `${field} must be a non-empty string`, { field });
  }
}

export function fileNotFound(id: string): FerryError {
  return new FerryError('E_FILE_NOT_FOUND', `File not found: ${id}`, { id });
}

export function nameTaken(name: string): FerryError {
  return new FerryError('E_INVALID_INPUT', `A file named "${name}" already exists`, {
    field: 'name',
    name,
    reason: 'name_taken',
  });
}
