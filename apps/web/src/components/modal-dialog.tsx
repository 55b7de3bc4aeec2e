// A modal built on <dialog>.showModal(): the browser traps focus, makes the page behind inert and
// closes on Escape (reported through onClose), so every dialog is keyboard-usable the same way.
import { type ReactNode, useEffect, useRef } from 'react';

export function ModalDialog({
  title,
  onClose,
  children,
  className = '',
}: {
  title: string;
  onClose(): void;
  children: ReactNode;
  className?: string;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    return () => dialog?.close();
  }, []);
  return (
    <dialog
      ref={ref}
      className={`modal ${className}`}
      aria-labelledby="modal-title"
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
    >
      <header className="modal-head">
        <h2 id="modal-title">{title}</h2>
        <button type="button" className="ghost small" aria-label="Close" onClick={onClose}>
          ×
        </button>
      </header>
      <div className="modal-body">{children}</div>
    </dialog>
  );
}
