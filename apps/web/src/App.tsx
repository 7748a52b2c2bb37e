import { lazy, type ReactNode, Suspense } from 'react';
import { hrefOf, useRoute } from './components/route.ts';
import { ToastProvider } from './components/Toasts.tsx';
import { useTheme } from './components/theme.ts';
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
        {route.screen === 'list' ? (
          <Loading>
            <FlowListScreen />
          </Loading>
        ) : route.screen === 'runs' ? (
          <Loading>
            <RunsScreen filters={route.filters} />
          </Loading>
        ) : route.screen === 'chat' ? (
          <Loading>
            <ChatScreen key={route.flowId} flowId={route.flowId} chatId={route.chatId} />
          </Loading>
        ) : route.screen === 'run' ? (
          // EditorScreen looks the run up (`runs.get`) and draws the flow version it ran; another
          // permalink of the same run moves the view without rebuilding it (one key for all runs:
          // EditorScreen keys its store by run).
          <EditorScreen key="run" runId={route.runId} at={route.at} step={route.step} theme={theme} />
        ) : (
          <EditorScreen key={route.flowId} flowId={route.flowId} theme={theme} />
        )}
      </div>
    </ToastProvider>
  );
}
