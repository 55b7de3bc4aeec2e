// The chat panel, loaded the first time the Chat tab is shown with a model configured: it brings
// marked + DOMPurify and the whole chat client, which the tool runner never needs (the initial
// bundle budget is checked by apps/web/scripts/bundle-budget.mjs).
import { lazy, Suspense } from 'react';

const LoadedChatPanel = lazy(() => import('./chat-panel').then((m) => ({ default: m.ChatPanel })));

export function ChatPanel({ model }: { model: string }) {
  return (
    <Suspense fallback={<p className="muted">Loading the chat…</p>}>
      <LoadedChatPanel model={model} />
    </Suspense>
  );
}
