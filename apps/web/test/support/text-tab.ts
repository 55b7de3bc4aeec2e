// The canvas tests' stand-in for a stored file: a one-byte text file whose id is `key`.
import { type CanvasFileItem, fileTab } from '../../src/lib/canvas-layout';

export function textTab(key: string): CanvasFileItem {
  return fileTab({ id: key, name: `${key}.txt`, mime: 'text/plain', size: 1 }, 'text');
}
