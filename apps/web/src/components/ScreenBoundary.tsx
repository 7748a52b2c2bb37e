/**
 * One error boundary per screen: a screen that throws while rendering shows what went wrong and a
 * way back to the flow list, instead of React unmounting the whole app (a blank page, top bar
 * included). A new address clears the error (App passes it as `resetKey`).
 */
import { Component, type ReactNode } from 'react';
import { hrefOf } from './route.ts';

interface Props {
  /** The screen's name as the message says it: "the run view", "the flow list"… */
  screen: string;
  /** When this changes (the address moved), a caught error is cleared and the screen tried again. */
  resetKey: string;
  children: ReactNode;
}

export class ScreenBoundary extends Component<Props, { error: unknown }> {
  override state: { error: unknown } = { error: undefined };

  static getDerivedStateFromError(error: unknown) {
    // `undefined` thrown would read as "no error": keep something to show.
    return { error: error ?? new Error('an unknown error') };
  }

  override componentDidUpdate(previous: Props) {
    if (previous.resetKey !== this.props.resetKey && this.state.error !== undefined)
      this.setState({ error: undefined });
  }

  override componentDidCatch(error: unknown) {
    // Kept in the console for a bug report; the screen itself shows the message.
    console.warn(`weft: ${this.props.screen} failed to render`, error);
  }

  override render() {
    if (this.state.error === undefined) return this.props.children;
    const message = this.state.error instanceof Error ? this.state.error.message : String(this.state.error);
    return (
      <ScreenProblem title={`Something went wrong in ${this.props.screen}`} detail={message}>
        The rest of Weft still works.
      </ScreenProblem>
    );
  }
}

/** A screen that cannot be shown: what happened, and a link back to the flow list. */
export function ScreenProblem({ title, detail, children }: { title: string; detail: string; children?: ReactNode }) {
  return (
    <main className="empty-state" role="alert">
      <h2>{title}</h2>
      <p className="mono">{detail}</p>
      {children ? <p>{children}</p> : null}
      <a className="button" href={hrefOf({ screen: 'list' })}>
        Back to the flow list
      </a>
    </main>
  );
}
