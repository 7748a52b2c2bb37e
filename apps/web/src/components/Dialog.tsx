/**
 * A modal dialog on the native `<dialog>` (focus trap, Escape, top layer for free), named by its
 * title. Opened on mount with showModal(); Escape or the close button calls `onClose`, and the
 * owner unmounts it. Not closed on unmount: React's StrictMode re-runs effects, and a close()
 * there would report a close the user never asked for.
 */
import { type ReactNode, useEffect, useId, useRef } from 'react';

export function Dialog({
  title,
  onClose,
  children,
  footer,
  className = '',
  alert = false,
  closeLabel = 'Close dialog',
}: {
  title: ReactNode;
  onClose(): void;
  children: ReactNode;
  footer?: ReactNode;
  className?: string;
  /** An alertdialog: something went wrong and needs reading. */
  alert?: boolean;
  closeLabel?: string;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open && typeof dialog.showModal === 'function') dialog.showModal();
  }, []);
  return (
    <dialog
      ref={ref}
      className={`dialog ${className}`}
      aria-labelledby={titleId}
      role={alert ? 'alertdialog' : undefined}
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
      // Keys pressed in a dialog are the dialog's: the canvas shortcuts (Delete, Ctrl+A, Ctrl+Z),
      // which listen on window, must not act on the graph behind it.
      onKeyDown={(event) => event.stopPropagation()}
    >
      <header className="dialog-head">
        <h2 id={titleId}>{title}</h2>
        <button type="button" className="icon-button" aria-label={closeLabel} onClick={onClose}>
          ×
        </button>
      </header>
      <div className="dialog-body">{children}</div>
      {footer ? <footer className="dialog-foot">{footer}</footer> : null}
    </dialog>
  );
}
