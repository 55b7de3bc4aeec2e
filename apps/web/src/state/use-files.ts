// My Files, loaded once and reloaded on demand (after an upload, a tool's file_stored event, a
// files_changed event of the user stream). Reloads are coalesced: a burst of events (a tool that
// stores five files) costs one request.
import type { FileDto } from '@ferry/contract';
import { useCallback, useEffect, useRef, useState } from 'react';
import { api } from '../api/client';

export interface FilesState {
  files: FileDto[];
  /** How many files the user has (the list holds the newest PAGE of them). */
  total: number;
  loading: boolean;
  error: string | null;
  refresh(): void;
}

const PAGE = 1000;

export function useFiles(): FilesState {
  const [files, setFiles] = useState<FileDto[]>([]);
  const [total, setTotal] = useState(0);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<string | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);

  const load = useCallback(async () => {
    try {
      const list = await api<{ items: FileDto[]; total: number }>(
        `/api/files?limit=${PAGE}&sort=created&order=desc`,
      );
      setFiles(list.items);
      setTotal(list.total);
      setError(null);
    } catch (failure) {
      setError((failure as Error).message);
    } finally {
      setLoading(false);
    }
  }, []);

  const refresh = useCallback(() => {
    if (timer.current !== null) clearTimeout(timer.current);
    timer.current = setTimeout(() => {
      timer.current = null;
      void load();
    }, 150);
  }, [load]);

  useEffect(() => {
    void load();
    return () => {
      if (timer.current !== null) clearTimeout(timer.current);
    };
  }, [load]);

  return { files, total, loading, error, refresh };
}
