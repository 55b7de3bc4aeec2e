// Short messages in the corner (a tool's display.notification, "renamed", upload failures):
// announced politely to screen readers, gone after a few seconds or when dismissed.
import { useCallback, useRef, useState } from 'react';

export interface Toast {
  id: number;
  text: string;
  kind: 'info' | 'success' | 'error';
}

export function useToasts() {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const next = useRef(1);
  const dismiss = useCallback((id: number) => setToasts((list) => list.filter((t) => t.id !== id)), []);
  const push = useCallback(
    (text: string, kind: Toast['kind'] = 'info') => {
      const id = next.current++;
      setToasts((list) => [...list.slice(-4), { id, text, kind }]);
      setTimeout(() => dismiss(id), kind === 'error' ? 10_000 : 6_000);
    },
    [dismiss],
  );
  return { toasts, push, dismiss };
}
