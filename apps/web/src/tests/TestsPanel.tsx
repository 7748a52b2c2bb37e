/**
 * The flow's test cases (runs saved as tests, in the server's tests folder): each with what it
 * matches, run one or all offline, pass/fail with the time taken and the first difference.
 */
import { useCallback, useEffect, useState } from 'react';
import { useEditor } from '../store/editor-hooks.ts';
import { formatDuration } from '../store/run-status.ts';
import { describeError } from '../trpc.ts';
import { describeMatch, listTests, runTests, type TestCaseSummary, type TestResult } from './tests-api.ts';
import { onTestsChanged } from './tests-events.ts';
import './tests.css';

export function TestsPanel() {
  const flowId = useEditor((state) => state.flowId);
  const [cases, setCases] = useState<TestCaseSummary[] | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [results, setResults] = useState<Record<string, TestResult>>({});
  const [running, setRunning] = useState<'all' | string | null>(null);
  const [runError, setRunError] = useState<string | null>(null);

  const load = useCallback(() => {
    listTests(flowId)
      .then((list) => {
        setCases(list);
        setLoadError(null);
      })
      .catch((error: unknown) => setLoadError(describeError(error)));
  }, [flowId]);
  useEffect(() => {
    load();
    return onTestsChanged(load);
  }, [load]);

  const run = async (which: 'all' | string) => {
    setRunning(which);
    setRunError(null);
    try {
      const answer = await runTests(which === 'all' ? { flowId } : { files: [which] });
      setResults((current) => {
        const next = which === 'all' ? {} : { ...current };
        for (const result of answer) next[result.file] = result;
        return next;
      });
    } catch (error) {
      setRunError(describeError(error));
    } finally {
      setRunning(null);
    }
  };

  // A result is the case's by its file, or by its name when the server spells the path otherwise.
  const resultOf = (test: TestCaseSummary) =>
    results[test.file] ?? Object.values(results).find((result) => result.name === test.name);
  const passed = Object.values(results).filter((result) => result.passed).length;
  const failed = Object.values(results).length - passed;
  return (
    <section className="tests-panel" aria-label="Tests">
      <h2 className="panel-title">
        Tests <span className="count">{cases?.length ?? 0}</span>
        {Object.keys(results).length > 0 ? (
          <span className={`count${failed > 0 ? ' bad' : ''}`} data-testid="tests-summary">
            {passed} passed, {failed} failed
          </span>
        ) : null}
      </h2>
      {loadError ? (
        <p className="field-error" role="alert">
          Could not list the tests: {loadError}
        </p>
      ) : cases === null ? (
        <p className="muted small">Loading…</p>
      ) : cases.length === 0 ? (
        <p className="muted small">No tests yet: open a completed run and press “Save as test”.</p>
      ) : (
        <>
          <button
            type="button"
            className="button small"
            aria-label="Run all tests"
            disabled={running !== null}
            onClick={() => run('all')}
          >
            {running === 'all' ? 'Running…' : '▶ Run all'}
          </button>
          <ul className="tests">
            {cases.map((test) => {
              const result = resultOf(test);
              return (
                <li
                  key={test.file}
                  className="test-case"
                  data-testid={`test-${test.name}`}
                  data-result={result ? (result.passed ? 'passed' : 'failed') : 'not-run'}
                >
                  <div className="test-head">
                    {result ? (
                      <span
                        className={`status-badge status-${result.passed ? 'completed' : 'failed'}`}
                        role="status"
                        aria-label={`Test ${test.name} ${result.passed ? 'passed' : 'failed'}`}
                      >
                        {result.passed ? 'pass' : 'fail'}
                      </span>
                    ) : null}
                    <span className="test-name" title={test.file}>
                      {test.name}
                    </span>
                    <button
                      type="button"
                      className="button ghost small"
                      aria-label={`Run test ${test.name}`}
                      disabled={running !== null}
                      onClick={() => run(test.file)}
                    >
                      {running === test.file ? '…' : '▶'}
                    </button>
                  </div>
                  <div className="muted small">
                    {test.flowVersion !== null ? `v${test.flowVersion} · ` : ''}
                    {describeMatch(test.match)}
                    {result ? ` · ${formatDuration(result.durationMs)}` : ''}
                  </div>
                  {test.error ? (
                    <pre className="pre error small" data-testid="test-invalid">
                      {test.error}
                    </pre>
                  ) : null}
                  {result && !result.passed ? (
                    <pre className="pre error small" data-testid="test-difference">
                      {result.error ?? result.firstDifference ?? 'failed'}
                    </pre>
                  ) : null}
                </li>
              );
            })}
          </ul>
        </>
      )}
      {runError ? (
        <p className="field-error" role="alert">
          Could not run the tests: {runError}
        </p>
      ) : null}
    </section>
  );
}
