// The user's conversations: new, select, rename (inline), delete (confirmed).
import { useState } from 'react';
import type { ConversationDto } from './chat-types';

export function ConversationList({
  conversations,
  selectedId,
  error,
  disabled,
  onNew,
  onSelect,
  onRename,
  onDelete,
}: {
  conversations: readonly ConversationDto[];
  selectedId: string | null;
  error: string | null;
  disabled: boolean;
  onNew(): void;
  onSelect(id: string): void;
  onRename(id: string, title: string): void;
  onDelete(id: string): void;
}) {
  const [editing, setEditing] = useState<string | null>(null);
  const [draft, setDraft] = useState('');
  const [confirming, setConfirming] = useState<string | null>(null);
  return (
    <nav className="chat-list" aria-label="Conversations">
      <button
        type="button"
        className="primary"
        onClick={onNew}
        disabled={disabled}
        title={disabled ? 'Stop or wait for the reply first' : undefined}
        data-testid="chat-new"
      >
        New conversation
      </button>
      {error && (
        <p className="error-text small" role="alert">
          {error}
        </p>
      )}
      {conversations.length === 0 && !error && <p className="muted small">No conversations yet.</p>}
      <ul>
        {conversations.map((c) => {
          const title = c.title || 'New conversation';
          const selected = c.id === selectedId;
          return (
            <li key={c.id} className={selected ? 'selected' : undefined} data-testid="chat-conversation">
              {editing === c.id ? (
                <form
                  className="chat-rename"
                  onSubmit={(event) => {
                    event.preventDefault();
                    setEditing(null);
                    if (draft.trim() !== '' && draft !== c.title) onRename(c.id, draft.trim());
                  }}
                >
                  <input
                    aria-label="Conversation title"
                    value={draft}
                    maxLength={200}
                    // biome-ignore lint/a11y/noAutofocus: the field appears because the user asked to rename
                    autoFocus
                    onChange={(event) => setDraft(event.target.value)}
                    onKeyDown={(event) => {
                      if (event.key === 'Escape') setEditing(null);
                    }}
                  />
                  <button type="submit" className="small">
                    Save
                  </button>
                </form>
              ) : (
                <button
                  type="button"
                  className="chat-list-item ghost"
                  aria-current={selected ? 'true' : undefined}
                  disabled={disabled && !selected}
                  onClick={() => onSelect(c.id)}
                  title={disabled && !selected ? 'Stop or wait for the reply first' : title}
                >
                  <span className="chat-list-title">{title}</span>
                  {c.running && <span className="badge">replying</span>}
                </button>
              )}
              {editing !== c.id && (
                <span className="chat-list-actions">
                  {confirming === c.id ? (
                    <>
                      <button
                        type="button"
                        className="small danger"
                        onClick={() => {
                          setConfirming(null);
                          onDelete(c.id);
                        }}
                      >
                        Delete
                      </button>
                      <button type="button" className="small ghost" onClick={() => setConfirming(null)}>
                        Keep
                      </button>
                    </>
                  ) : (
                    <>
                      <button
                        type="button"
                        className="small ghost"
                        aria-label={`Rename ${title}`}
                        onClick={() => {
                          setDraft(c.title);
                          setEditing(c.id);
                        }}
                      >
                        Rename
                      </button>
                      <button
                        type="button"
                        className="small ghost"
                        aria-label={`Delete ${title}`}
                        onClick={() => setConfirming(c.id)}
                      >
                        Delete
                      </button>
                    </>
                  )}
                </span>
              )}
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
