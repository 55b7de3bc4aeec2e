// Fetches a file's content as text for the text-based viewers, at most `limit` bytes (a Range
// request), so opening a 2 GB log does not freeze the tab. `truncated` says when there is more.
import { useEffect, useState } from 'react';
import { contentUrl, errorFromResponse } from '../api/client';

export interface FileText {
  text: string | null;
  error: string | null;
  truncated: boolean;
}

export const TEXT_VIEW_LIMIT = 8 * 1024 * 1024;

export function useFileText(fileId: string, size: number, limit = TEXT_VIEW_LIMIT): FileText {
  const [state, setState] = useState<FileText>({ text: null, error: null, truncated: false });
  useEffect(() => {
    const controller = new AbortController();
    setState({ text: null, error: null, truncated: false });
    const truncated = size > limit;
    fetch(contentUrl(fileId), {
      signal: controller.signal,
      headers: truncated ? { range: `bytes=0-${limit - 1}` } : {},
    })
      .then(async (response) => {
        if (!response.ok) throw await errorFromResponse(response);
        const text = await response.text();
        setState({ text, error: null, truncated });
      })
      .catch((error: unknown) => {
        if (controller.signal.aborted) return;
        setState({ text: null, error: (error as Error).message, truncated: false });
      });
    return () => controller.abort();
  }, [fileId, size, limit]);
  return state;
}
