// Chat arrives with the agent (issue 9, another engineer's work). Until then this panel says
// whether a model is configured (GET /api/status `llm`) and points at the tool runner, which
// works without a model.
export function ChatPlaceholder({ llm, onUseTools }: { llm: string | undefined; onUseTools(): void }) {
  const configured = llm !== undefined && !/not configured|none|disabled/i.test(llm);
  return (
    <div className="chat-placeholder" data-testid="chat-placeholder">
      <h3>{configured ? 'Chat is coming' : 'No model configured'}</h3>
      <p className="muted">
        {configured
          ? `A model is configured (${llm}); the chat view is not part of this build yet.`
          : 'Chat with a language model needs a model endpoint (FERRY_LLM_*). Until then you can run any tool yourself.'}
      </p>
      <button type="button" className="primary" onClick={onUseTools}>
        Open the tool runner
      </button>
    </div>
  );
}
