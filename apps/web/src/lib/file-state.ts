// The one state badge of a file in My Files. A deferred file (a draft a tool stored for later) is
// a draft with an expiry, whatever else is true of it: it shows "draft · expires in 2 days" and
// not "saved", "draft" and "expires in 2 days" side by side. Pure, so it is unit-tested.
import type { FileDto } from '@ferry/contract';
import { describeExpiry, formatDate } from './format';

export type FileStateTone = 'session' | 'persistent' | 'draft' | 'expired';

export interface FileState {
  /** Short, on the badge. */
  text: string;
  /** The explanation, as its tooltip (and read out after the text). */
  explanation: string;
  tone: FileStateTone;
}

type StateFacts = Pick<FileDto, 'source' | 'temporary' | 'expiresAt'>;

export function fileState(file: StateFacts, now: number): FileState {
  if (file.source !== 'deferred') {
    return file.temporary
      ? { text: 'session', explanation: 'Deleted when this session ends', tone: 'session' }
      : { text: 'saved', explanation: 'Kept across sessions', tone: 'persistent' };
  }
  const expiry = describeExpiry(file.expiresAt, now);
  const session = file.temporary ? ' It is also deleted when this session ends.' : '';
  const draft = 'A draft a tool stored for you to finish later.';
  if (expiry === undefined) {
    return { text: 'draft', explanation: `${draft}${session}`, tone: 'draft' };
  }
  if (expiry === 'expired') {
    return {
      text: 'draft · expired',
      explanation: `${draft} It expired and is about to be deleted.`,
      tone: 'expired',
    };
  }
  return {
    text: `draft · ${expiry}`,
    explanation: `${draft} It is deleted on ${formatDate(file.expiresAt ?? '')}: finish or download it before then.${session}`,
    tone: 'draft',
  };
}

/** A category that only repeats the state (a deferred file's "draft") is not shown again. */
export function showsCategory(file: Pick<FileDto, 'source' | 'category'>): boolean {
  if (!file.category) return false;
  return !(file.source === 'deferred' && file.category.trim().toLowerCase() === 'draft');
}
