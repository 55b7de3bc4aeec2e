// The Chat tab without a model: says so (GET /api/status `llm`) and points at the tool runner,
// which works without a model. With a model, app.tsx shows the chat (chat/chat-panel.tsx).
export function isModelConfigured(llm: string | undefined): llm is string {
  return llm !== undefined && !/not configured|none|disabled/i.test(llm);
}

export function ChatPlaceholder({ llm, onUseTools }: { llm: string | undefined; onUseTools(): void }) {
  const configured = isModelConfigured(llm);
  return (
    <div className="chat-placeholder" data-testid="chat-placeholder">
      <h3>{configured ? 'Chat is loading' : 'No model configured'}</h3>
      <p className="muted">
        {configured
          ? `A model is configured (${llm}).`
          : 'Chat with a language model needs a model endpoint (FERRY_LLM_*). Until then you can run any tool yourself.'}
      </p>
      <button type="button" className="primary" onClick={onUseTools}>
        Open the tool runner
      </button>
    </div>
  );
}
