// One upload: the File goes to POST /api/files as the raw request body, straight from disk (the
// browser streams a File body; nothing is read into memory here). XMLHttpRequest is used rather
// than fetch because only it reports upload progress in Chromium without a streaming body.
import type { FileDto, UploadedFiles } from '@ferry/contract';
import { errorFromText, rememberSession, sessionHeaders } from './client';

export interface UploadProgress {
  loaded: number;
  total: number;
}

export interface UploadHandle {
  done: Promise<FileDto>;
  abort(): void;
}

export class UploadAbortedError extends Error {
  override readonly name = 'UploadAbortedError';
}

export function uploadFile(
  file: Blob,
  name: string,
  onProgress: (progress: UploadProgress) => void,
  options: { temporary?: boolean } = {},
): UploadHandle {
  const xhr = new XMLHttpRequest();
  const query = new URLSearchParams({ name });
  if (options.temporary) query.set('temporary', 'true');
  const done = new Promise<FileDto>((resolve, reject) => {
    xhr.open('POST', `/api/files?${query.toString()}`);
    for (const [key, value] of Object.entries(sessionHeaders())) xhr.setRequestHeader(key, value);
    xhr.setRequestHeader('content-type', file.type || 'application/octet-stream');
    xhr.setRequestHeader('accept', 'application/json');
    xhr.upload.onprogress = (event) => onProgress({ loaded: event.loaded, total: event.total || file.size });
    xhr.onload = () => {
      rememberSession(xhr.getResponseHeader('x-ferry-session'));
      if (xhr.status === 201) {
        const body = JSON.parse(xhr.responseText) as UploadedFiles;
        const stored = body.files[0];
        if (stored) return resolve(stored);
      }
      reject(errorFromText(xhr.status, xhr.responseText, xhr.statusText));
    };
    // The server closes the connection when it refuses a large body early (413 before reading it);
    // the browser may then only report a network error.
    xhr.onerror = () =>
      reject(new Error('The upload failed (network error or the server closed the connection)'));
    xhr.onabort = () => reject(new UploadAbortedError('Cancelled'));
    xhr.send(file);
  });
  return { done, abort: () => xhr.abort() };
}
