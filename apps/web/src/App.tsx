import { lazy, Suspense } from 'react';
import { hrefOf, useRoute } from './components/route.ts';
import { ToastProvider } from './components/Toasts.tsx';
import { useTheme } from './components/theme.ts';
import { EditorScreen } from './screens/EditorScreen.tsx';
import { FlowListScreen } from './screens/FlowListScreen.tsx';
import { RunsScreen } from './screens/RunsScreen.tsx';

// The chat screen brings the AI SDK with it: its own chunk, loaded when a chat is opened.
const ChatScreen = lazy(() => import('./chat/ChatScreen.tsx').then((module) => ({ default: module.ChatScreen })));

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
          <FlowListScreen />
        ) : route.screen === 'runs' ? (
          <RunsScreen filters={route.filters} />
        ) : route.screen === 'chat' ? (
          <Suspense fallback={<p className="loading muted">Loading…</p>}>
            <ChatScreen key={route.flowId} flowId={route.flowId} chatId={route.chatId} />
          </Suspense>
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
