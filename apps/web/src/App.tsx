import { lazy, type ReactNode, Suspense } from 'react';
import { hrefOf, type Route, useRoute } from './components/route.ts';
import { ScreenBoundary, ScreenProblem } from './components/ScreenBoundary.tsx';
import { ToastProvider } from './components/Toasts.tsx';
import { type Theme, useTheme } from './components/theme.ts';
import { EditorScreen } from './screens/EditorScreen.tsx';

// The chat screen brings the AI SDK with it: its own chunk, loaded when a chat is opened. The
// flow list and the runs screen are chunks of their own too, so an editor address (the one a
// large flow opens at) starts with less code to compile before it can draw.
const ChatScreen = lazy(() => import('./chat/ChatScreen.tsx').then((module) => ({ default: module.ChatScreen })));
const FlowListScreen = lazy(() =>
  import('./screens/FlowListScreen.tsx').then((module) => ({ default: module.FlowListScreen })),
);
const RunsScreen = lazy(() => import('./screens/RunsScreen.tsx').then((module) => ({ default: module.RunsScreen })));

const Loading = ({ children }: { children: ReactNode }) => (
  <Suspense fallback={<p className="loading muted">Loading…</p>}>{children}</Suspense>
);

export function App() {
  const route = useRoute();
  const [theme, toggleTheme] = useTheme();
  // The run view is a screen of runs: the top bar says so.
  const section = route.screen === 'runs' || route.screen === 'run' ? 'runs' : 'flows';
  return (
    <ToastProvider>
      <div className="app">
        <header className="topbar">
          <a className="brand" href="#/" aria-label="Weft: all flows">
            <span className="brand-mark" aria-hidden="true">
              ≋
            </span>
            Weft
          </a>
          <nav className="topbar-nav" aria-label="Sections">
            <a href={hrefOf({ screen: 'list' })} aria-current={section === 'flows' ? 'page' : undefined}>
              Flows
            </a>
            <a href={hrefOf({ screen: 'runs', filters: {} })} aria-current={section === 'runs' ? 'page' : undefined}>
              Runs
            </a>
          </nav>
          <div className="topbar-spacer" />
          <button
            type="button"
            className="button ghost"
            aria-label={`Switch to ${theme === 'dark' ? 'light' : 'dark'} theme`}
            onClick={toggleTheme}
          >
            {theme === 'dark' ? '☀ Light' : '☾ Dark'}
          </button>
        </header>
        {/* Keyed as the screens are (the run view is one screen for every run); any change of
            address clears an error, so a way out is never more than a link away. */}
        <ScreenBoundary key={boundaryKey(route)} resetKey={hrefOf(route)} screen={screenName(route)}>
          <Screen route={route} theme={theme} />
        </ScreenBoundary>
      </div>
    </ToastProvider>
  );
}

function Screen({ route, theme }: { route: Route; theme: Theme }) {
  switch (route.screen) {
    case 'list':
      return (
        <Loading>
          <FlowListScreen />
        </Loading>
      );
    case 'runs':
      return (
        <Loading>
          <RunsScreen filters={route.filters} />
        </Loading>
      );
    case 'chat':
      return (
        <Loading>
          <ChatScreen key={route.flowId} flowId={route.flowId} chatId={route.chatId} />
        </Loading>
      );
    case 'run':
      // EditorScreen looks the run up (`runs.get`) and draws the flow version it ran; another
      // permalink of the same run moves the view without rebuilding it (one key for all runs:
      // EditorScreen keys its store by run).
      return <EditorScreen key="run" runId={route.runId} at={route.at} step={route.step} theme={theme} />;
    case 'editor':
      return <EditorScreen key={route.flowId} flowId={route.flowId} theme={theme} />;
    case 'not-found':
      return <ScreenProblem title="This address leads nowhere" detail={route.reason} />;
  }
}

function screenName(route: Route): string {
  switch (route.screen) {
    case 'list':
      return 'the flow list';
    case 'runs':
      return 'the runs screen';
    case 'chat':
      return 'the chat';
    case 'run':
      return 'the run view';
    case 'editor':
      return 'the editor';
    case 'not-found':
      return 'this page';
  }
}

function boundaryKey(route: Route): string {
  switch (route.screen) {
    case 'editor':
    case 'chat':
      return `${route.screen}:${route.flowId}`;
    case 'list':
    case 'runs':
    case 'run':
    case 'not-found':
      return route.screen;
  }
}
