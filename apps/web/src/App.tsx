import { useRoute } from './components/route.ts';
import { ToastProvider } from './components/Toasts.tsx';
import { useTheme } from './components/theme.ts';
import { EditorScreen } from './screens/EditorScreen.tsx';
import { FlowListScreen } from './screens/FlowListScreen.tsx';

export function App() {
  const route = useRoute();
  const [theme, toggleTheme] = useTheme();
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
        ) : (
          <EditorScreen key={route.flowId} flowId={route.flowId} theme={theme} />
        )}
      </div>
    </ToastProvider>
  );
}
