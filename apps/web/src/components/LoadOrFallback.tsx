/**
 * A lazily loaded component (its own chunk) with a plain stand-in: shown while the chunk loads,
 * and for good if it fails to load or to render, so the user is never left without the field.
 */
import { Component, type ReactNode, Suspense } from 'react';

class ErrorFallback extends Component<{ fallback: ReactNode; children: ReactNode }, { failed: boolean }> {
  override state = { failed: false };
  static getDerivedStateFromError() {
    return { failed: true };
  }
  override render() {
    return this.state.failed ? this.props.fallback : this.props.children;
  }
}

export function LoadOrFallback({ fallback, children }: { fallback: ReactNode; children: ReactNode }) {
  return (
    <ErrorFallback fallback={fallback}>
      <Suspense fallback={fallback}>{children}</Suspense>
    </ErrorFallback>
  );
}
