// A modal built on <dialog>.showModal(): the browser traps focus, makes the page behind inert and
// closes on Escape (reported through onClose), so every dialog is keyboard-usable the same way.
// Focus starts on the first field of the body (not on ×) and, when the dialog goes away, returns
// to the element that had it before; when that one is gone (a list re-rendered under the dialog),
// to the control with the same accessible name, else to the tool runner's region.
import { type ReactNode, useLayoutEffect, useRef, useState } from 'react';

const FIRST_FIELD =
  'input:not([type="hidden"]):not([hidden]):not(:disabled), select:not(:disabled), textarea:not(:disabled)';
const FOCUSABLE = `${FIRST_FIELD}, button:not(:disabled), a[href], [tabindex]:not([tabindex="-1"])`;

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
  // Read while rendering, before anything in the dialog can take focus.
  const [opener] = useState(() =>
    document.activeElement instanceof HTMLElement && document.activeElement !== document.body
      ? document.activeElement
      : null,
  );
  // Layout effects: the cleanup runs while the dialog is still in the document, so it can close
  // it and hand focus back in the same commit that removes it.
  useLayoutEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    const body = dialog.querySelector('.modal-body');
    const first =
      body?.querySelector<HTMLElement>(FIRST_FIELD) ?? body?.querySelector<HTMLElement>(FOCUSABLE);
    // showModal() focuses the autofocus element, else the first focusable one (×): marked for the
    // call only, the first field gets focus directly, never × in between.
    first?.setAttribute('autofocus', '');
    if (!dialog.open) dialog.showModal();
    first?.removeAttribute('autofocus');
    first?.focus();
    return () => {
      dialog.close();
      // The first that takes focus (a control disabled meanwhile does not).
      for (const target of [opener, sameControl(opener), document.getElementById('work')]) {
        if (!target?.isConnected) continue;
        target.focus();
        if (document.activeElement === target) break;
      }
    };
  }, [opener]);
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

/** A control like `gone` (same tag and aria-label) now in the document: e.g. the row's new button. */
function sameControl(gone: HTMLElement | null): HTMLElement | null {
  const label = gone?.getAttribute('aria-label');
  if (!gone || !label) return null;
  return document.querySelector<HTMLElement>(`${gone.localName}[aria-label="${CSS.escape(label)}"]`);
}
