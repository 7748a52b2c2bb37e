/** A tiny toast stack: `useToast()(message, kind)` shows a message for a few seconds. */
import { createContext, type ReactNode, useCallback, useContext, useMemo, useState } from 'react';

type ToastKind = 'error' | 'info' | 'success';
interface Toast {
  id: number;
  message: string;
  kind: ToastKind;
}
type Push = (message: string, kind?: ToastKind) => void;

const ToastContext = createContext<Push>(() => {});
let nextId = 1;

export function ToastProvider({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const dismiss = useCallback((id: number) => setToasts((all) => all.filter((toast) => toast.id !== id)), []);
  const push = useCallback<Push>(
    (message, kind = 'error') => {
      const id = nextId++;
      setToasts((all) => [...all.slice(-4), { id, message, kind }]);
      setTimeout(() => dismiss(id), kind === 'error' ? 8000 : 3500);
    },
    [dismiss],
  );
  const value = useMemo(() => push, [push]);
  return (
    <ToastContext.Provider value={value}>
      {children}
      <section className="toasts" aria-live="polite" aria-label="Notifications">
        {toasts.map((toast) => (
          <div
            key={toast.id}
            className={`toast toast-${toast.kind}`}
            role={toast.kind === 'error' ? 'alert' : 'status'}
          >
            <span>{toast.message}</span>
            <button
              type="button"
              className="icon-button"
              aria-label="Dismiss notification"
              onClick={() => dismiss(toast.id)}
            >
              ×
            </button>
          </div>
        ))}
      </section>
    </ToastContext.Provider>
  );
}

export function useToast(): Push {
  return useContext(ToastContext);
}
