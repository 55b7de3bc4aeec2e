// The chat: conversations on the left; on the right the messages (the answer streams in token by
// token, tool calls are cards whose files open on the canvas) and the composer (Enter sends,
// Shift+Enter is a new line, Stop cancels the streaming turn). The file list Ferry sends the model
// with each message is never shown: the API stores the user's text as typed.
import './chat.css';
import type { FileRequestAnswer, UiFile } from '@ferry/contract';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { takeChatDraft, useChatDraft } from '../apps/chat-drafts';
import { errorTitle } from '../lib/friendly-error';
import { FriendlyErrorBox } from '../runner/result-view';
import { useApp } from '../state/app-context';
import { renderMarkdown } from '../viewers/markdown-viewer';
import type { ChatEntry } from './chat-model';
import { ConversationList } from './conversation-list';
import { FileRequestCard } from './file-request-card';
import { ToolCard } from './tool-card';
import { useChat } from './use-chat';

export function ChatPanel({ model }: { model: string }) {
  const { refreshFiles, toast, openFile } = useApp();
  const chat = useChat({ onToolFinished: refreshFiles, onError: (text) => toast(text, 'error') });
  const onOpen = useCallback((file: UiFile) => openFile(file), [openFile]);
  const title = chat.conversations.find((c) => c.id === chat.selectedId)?.title;
  return (
    <div className="chat-host">
      <div className="chat" data-testid="chat">
        <ConversationList
          conversations={chat.conversations}
          selectedId={chat.selectedId}
          error={chat.listError}
          disabled={chat.streaming}
          onNew={() => void chat.create()}
          onSelect={chat.select}
          onRename={(id, t) => void chat.rename(id, t)}
          onDelete={(id) => void chat.remove(id)}
        />
        <section className="chat-main" aria-label={title ? `Conversation: ${title}` : 'Conversation'}>
          <Messages
            entries={chat.entries}
            loading={chat.loading}
            streaming={chat.streaming}
            model={model}
            onOpen={onOpen}
            onAnswerFiles={chat.answerFileRequest}
          />
          <Composer
            streaming={chat.streaming}
            stopping={chat.stopping}
            onSend={(text) => void chat.send(text)}
            onStop={() => void chat.stop()}
          />
        </section>
      </div>
    </div>
  );
}

function Messages({
  entries,
  loading,
  streaming,
  model,
  onOpen,
  onAnswerFiles,
}: {
  entries: readonly ChatEntry[];
  loading: boolean;
  streaming: boolean;
  model: string;
  onOpen(file: UiFile): void;
  onAnswerFiles(requestId: string, answer: FileRequestAnswer): Promise<string | null>;
}) {
  const end = useRef<HTMLDivElement>(null);
  const box = useRef<HTMLDivElement>(null);
  // Follow the answer while it grows, unless the user scrolled up to read.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs on every change of the entries
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    if (el.scrollHeight - el.scrollTop - el.clientHeight < 160) end.current?.scrollIntoView({ block: 'end' });
  }, [entries]);
  // A call waiting for the user's file is not the model working.
  const waiting =
    streaming &&
    !entries.some((e) => (e.kind === 'assistant' && e.live) || (e.kind === 'tool' && e.fileRequest));
  return (
    <div className="chat-messages" ref={box} data-testid="chat-messages" aria-busy={streaming}>
      {loading && <p className="muted">Loading…</p>}
      {!loading && entries.length === 0 && (
        <div className="chat-empty">
          <h3>Ask about your files</h3>
          <p className="muted">
            The model ({model}) sees the names of the files in My Files and can run the tools on them. Files
            the tools make show up here and open on the canvas.
          </p>
        </div>
      )}
      <ol className="chat-entries" aria-live="polite" aria-relevant="additions">
        {entries.map((entry) => (
          <li key={entry.key} className={`chat-entry ${entry.kind}`}>
            <Entry entry={entry} onOpen={onOpen} onAnswerFiles={onAnswerFiles} />
          </li>
        ))}
      </ol>
      {waiting && (
        <p className="muted small chat-thinking" role="status">
          Working…
        </p>
      )}
      <div ref={end} />
    </div>
  );
}

/**
 * A finished answer as markdown, sanitized by DOMPurify (renderMarkdown): a model may echo raw
 * HTML it read in a tool result, which must never run in Ferry's origin. While tokens stream the
 * text stays plain, so half-written markdown does not jump around.
 */
function AssistantMarkdown({ text }: { text: string }) {
  const html = useMemo(() => renderMarkdown(text), [text]);
  // biome-ignore lint/security/noDangerouslySetInnerHtml: sanitized by DOMPurify in renderMarkdown
  return <div className="markdown-body chat-markdown" dangerouslySetInnerHTML={{ __html: html }} />;
}

function Entry({
  entry,
  onOpen,
  onAnswerFiles,
}: {
  entry: ChatEntry;
  onOpen(file: UiFile): void;
  onAnswerFiles(requestId: string, answer: FileRequestAnswer): Promise<string | null>;
}) {
  switch (entry.kind) {
    case 'user':
      return (
        <div className="chat-bubble user" data-testid="chat-user">
          <span className="sr-only">You said: </span>
          {entry.text}
        </div>
      );
    case 'assistant':
      return (
        <div
          className={`chat-bubble assistant${entry.live ? ' live' : ''}`}
          data-testid="chat-assistant"
          data-live={entry.live}
        >
          <span className="sr-only">The model said: </span>
          {entry.live ? entry.text : <AssistantMarkdown text={entry.text} />}
          {entry.live && <span className="chat-caret" aria-hidden="true" />}
          {entry.status === 'cancelled' && <span className="badge chat-badge">stopped</span>}
          {entry.status === 'incomplete' && <span className="badge chat-badge">incomplete</span>}
        </div>
      );
    case 'tool':
      return (
        <>
          <ToolCard entry={entry} onOpen={onOpen} />
          <FileRequestCard entry={entry} onAnswer={onAnswerFiles} />
        </>
      );
    case 'error':
      return (
        <div data-testid="chat-error">
          <FriendlyErrorBox
            error={{ title: errorTitle(entry.code), message: entry.message, code: entry.code }}
          />
        </div>
      );
    case 'notice':
      return (
        <p className="chat-notice" data-testid="chat-notice" role="status">
          {entry.text}
        </p>
      );
  }
}

function Composer({
  streaming,
  stopping,
  onSend,
  onStop,
}: {
  streaming: boolean;
  stopping: boolean;
  onSend(text: string): void;
  onStop(): void;
}) {
  const [text, setText] = useState('');
  const field = useRef<HTMLTextAreaElement>(null);
  // A message an MCP App asked to add, approved by the user: into the draft, for them to send.
  const draft = useChatDraft();
  useEffect(() => {
    if (!draft) return;
    setText((current) => (current ? `${current}\n${draft.text}` : draft.text));
    takeChatDraft(draft.id);
    field.current?.focus();
  }, [draft]);
  const submit = () => {
    if (streaming || text.trim() === '') return;
    onSend(text);
    setText('');
  };
  useEffect(() => {
    if (!streaming) field.current?.focus();
  }, [streaming]);
  return (
    <form
      className="chat-composer"
      onSubmit={(event) => {
        event.preventDefault();
        submit();
      }}
    >
      <label htmlFor="chat-input" className="sr-only">
        Message
      </label>
      <textarea
        id="chat-input"
        ref={field}
        data-testid="chat-input"
        rows={3}
        value={text}
        disabled={streaming}
        placeholder={
          streaming ? 'The model is replying…' : 'Ask about your files (Enter sends, Shift+Enter: new line)'
        }
        onChange={(event) => setText(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
            event.preventDefault();
            submit();
          }
        }}
      />
      {streaming ? (
        <button type="button" className="danger" onClick={onStop} disabled={stopping} data-testid="chat-stop">
          {stopping ? 'Stopping…' : 'Stop'}
        </button>
      ) : (
        <button type="submit" className="primary" disabled={text.trim() === ''} data-testid="chat-send">
          Send
        </button>
      )}
    </form>
  );
}
