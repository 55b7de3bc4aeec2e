// Keeps the canvas tabs (and which one is active) across a reload. sessionStorage, like the
// session id in api/client.ts: a reload keeps both, a new browser tab starts a new session with an
// empty canvas. Saved tabs whose file is gone (deleted, expired, another session's) are dropped
// without a word; their names and sizes are refreshed from the server (a rename keeps the id).
import type { FileDto } from '@ferry/contract';
import { type Dispatch, useEffect, useState } from 'react';
import { ApiRequestError, api } from '../api/client';
import type { CanvasAction, CanvasItem, CanvasState } from '../lib/canvas-layout';
import { canvasStorageKey, keepItems, parseStoredCanvas, serializeCanvas } from '../lib/canvas-storage';

function readStored(key: string): string | null {
  try {
    return sessionStorage.getItem(key);
  } catch {
    return null;
  }
}

function writeStored(key: string, value: string): void {
  try {
    sessionStorage.setItem(key, value);
  } catch {
    // No storage (private mode, quota): the tabs last as long as the page.
  }
}

/** The item as the server knows it now, or null when its file no longer exists. */
async function recheck(item: CanvasItem): Promise<CanvasItem | null> {
  if (item.kind !== 'file') return item;
  try {
    const file = await api<FileDto>(`/api/files/${encodeURIComponent(item.fileId)}`);
    return { ...item, name: file.name, mime: file.mime, size: file.size };
  } catch (error) {
    // Only a definite "not there" drops the tab; a network hiccup keeps it (its viewer says why).
    const gone = error instanceof ApiRequestError && (error.status === 404 || error.status === 410);
    return gone ? null : item;
  }
}

export function useCanvasPersistence(
  username: string | undefined,
  canvas: CanvasState,
  dispatch: Dispatch<CanvasAction>,
): void {
  // Saving starts once the saved tabs were read back, so the empty start never overwrites them.
  const [restoredFor, setRestoredFor] = useState<string | null>(null);

  useEffect(() => {
    if (!username) return;
    let current = true;
    const saved = parseStoredCanvas(readStored(canvasStorageKey(username)));
    if (!saved) {
      setRestoredFor(username);
      return;
    }
    void Promise.all(saved.items.map(recheck)).then((checked) => {
      if (!current) return;
      const byKey = new Map(checked.filter((item) => item !== null).map((item) => [item.key, item]));
      const kept = keepItems(saved, (item) => byKey.has(item.key));
      const refreshed = { ...kept, items: kept.items.map((item) => byKey.get(item.key) ?? item) };
      if (refreshed.items.length > 0) dispatch({ type: 'restore', saved: refreshed });
      setRestoredFor(username);
    });
    return () => {
      current = false;
    };
  }, [username, dispatch]);

  useEffect(() => {
    if (username && restoredFor === username)
      writeStored(canvasStorageKey(username), serializeCanvas(canvas));
  }, [username, restoredFor, canvas]);
}
