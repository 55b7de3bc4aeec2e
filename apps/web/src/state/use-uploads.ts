// The upload queue: every file gets its own row with a progress bar, speed, cancel and its own
// error. At most three run at once, so a drop of 200 files does not open 200 connections.
import { type FileDto, formatBytes, normalizeFilename } from '@ferry/contract';
import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiRequestError } from '../api/client';
import { UploadAbortedError, uploadFile } from '../api/upload-file';
import { addSample, bytesPerSecond, type RateSample } from '../lib/transfer-rate';

export type UploadStatus = 'queued' | 'uploading' | 'done' | 'error' | 'cancelled';

export interface UploadItem {
  id: string;
  name: string;
  size: number;
  status: UploadStatus;
  loaded: number;
  rate: number;
  error?: string;
  suggestion?: string;
  /** The name My Files stored it under, when the normalizer changed it. */
  storedName?: string;
  stored?: FileDto;
}

export interface UploadsState {
  items: UploadItem[];
  add(files: readonly File[]): Promise<FileDto[]>;
  cancel(id: string): void;
  clearFinished(): void;
}

const CONCURRENCY = 3;

interface Job {
  item: UploadItem;
  file: File;
  resolve(file: FileDto | undefined): void;
  abort?: () => void;
  samples: RateSample[];
}

export function useUploads(options: {
  maxFileSizeBytes?: number;
  onStored(file: FileDto): void;
}): UploadsState {
  const [items, setItems] = useState<UploadItem[]>([]);
  const jobs = useRef(new Map<string, Job>());
  const running = useRef(0);
  const optionsRef = useRef(options);
  optionsRef.current = options;

  const update = useCallback((id: string, patch: Partial<UploadItem>) => {
    setItems((list) => list.map((item) => (item.id === id ? { ...item, ...patch } : item)));
  }, []);

  const pump = useCallback(() => {
    for (const job of jobs.current.values()) {
      if (running.current >= CONCURRENCY) return;
      if (job.item.status !== 'queued') continue;
      running.current++;
      job.item.status = 'uploading';
      update(job.item.id, { status: 'uploading' });
      let last = 0;
      const handle = uploadFile(job.file, job.file.name, ({ loaded }) => {
        const now = performance.now();
        job.samples = addSample(job.samples, { at: now, loaded });
        // A few UI updates per second are enough; progress events come much faster on loopback.
        if (now - last < 100 && loaded < job.file.size) return;
        last = now;
        update(job.item.id, { loaded, rate: bytesPerSecond(job.samples) });
      });
      job.abort = handle.abort;
      handle.done
        .then((stored) => {
          const renamed = stored.name !== job.file.name ? { storedName: stored.name } : {};
          update(job.item.id, { status: 'done', loaded: job.file.size, stored, ...renamed });
          optionsRef.current.onStored(stored);
          job.resolve(stored);
        })
        .catch((error: unknown) => {
          if (error instanceof UploadAbortedError) update(job.item.id, { status: 'cancelled' });
          else update(job.item.id, { status: 'error', ...describeUploadError(error, job.file.name) });
          job.resolve(undefined);
        })
        .finally(() => {
          job.item.status = 'done';
          jobs.current.delete(job.item.id);
          running.current--;
          pump();
        });
    }
  }, [update]);

  const add = useCallback(
    (files: readonly File[]) => {
      const limit = optionsRef.current.maxFileSizeBytes;
      const promises: Promise<FileDto | undefined>[] = [];
      const added: UploadItem[] = [];
      for (const file of files) {
        const id = crypto.randomUUID();
        const normalized = normalizeFilename(file.name);
        const item: UploadItem = {
          id,
          name: file.name,
          size: file.size,
          status: 'queued',
          loaded: 0,
          rate: 0,
          ...(normalized !== file.name ? { storedName: normalized } : {}),
        };
        if (limit !== undefined && file.size > limit) {
          // Refused here, before a byte is sent; the server would refuse it too.
          added.push({
            ...item,
            status: 'error',
            error: `Too large: ${formatBytes(file.size)}, the limit is ${formatBytes(limit)}`,
            suggestion: 'Split or compress the file, or ask your administrator to raise max_file_size_mb',
          });
          continue;
        }
        added.push(item);
        promises.push(
          new Promise((resolve) => {
            jobs.current.set(id, { item: { ...item }, file, resolve, samples: [] });
          }),
        );
      }
      setItems((list) => [...added, ...list].slice(0, 200));
      pump();
      return Promise.all(promises).then((stored) => stored.filter((f): f is FileDto => f !== undefined));
    },
    [pump],
  );

  const cancel = useCallback(
    (id: string) => {
      const job = jobs.current.get(id);
      if (!job) return;
      if (job.abort) job.abort();
      else {
        jobs.current.delete(id);
        update(id, { status: 'cancelled' });
        job.resolve(undefined);
      }
    },
    [update],
  );

  const clearFinished = useCallback(() => {
    setItems((list) => list.filter((item) => item.status === 'queued' || item.status === 'uploading'));
  }, []);

  useEffect(() => {
    const current = jobs.current;
    return () => {
      for (const job of current.values()) job.abort?.();
    };
  }, []);

  return { items, add, cancel, clearFinished };
}

function describeUploadError(error: unknown, name: string): { error: string; suggestion?: string } {
  if (error instanceof ApiRequestError) {
    const prefix =
      error.code === 'E_FILE_TOO_LARGE'
        ? 'Too large'
        : error.code === 'E_QUOTA_EXCEEDED'
          ? 'Quota exceeded'
          : error.code === 'E_INVALID_INPUT'
            ? `Bad name or request (${name})`
            : error.code;
    return {
      error: `${prefix}: ${error.message}`,
      ...(error.suggestion ? { suggestion: error.suggestion } : {}),
    };
  }
  return { error: (error as Error).message ?? String(error) };
}
