/**
 * The runs screen's filters: text search (the database searches run input, output and error
 * messages), flow and version, status, backend, time range, and whether child runs are listed. Every
 * change goes to the address (the screen reads its filters from there); typing is debounced so a
 * search is not sent per keystroke, and Enter sends it at once.
 */
import { RUN_STATUSES } from '@weft/engine';
import { type ReactNode, useEffect, useRef, useState } from 'react';
import type { RunFilters } from '../components/route.ts';
import { useBackends } from '../runs/use-backends.tsx';
import { trpc } from '../trpc.ts';
import { fromLocalInput, toLocalInput } from './format.ts';

const TYPING_MS = 250;

const RANGES = [
  { value: '', label: 'Any time' },
  { value: '1h', label: 'Last hour' },
  { value: '24h', label: 'Last 24 hours' },
  { value: '7d', label: 'Last 7 days' },
  { value: '30d', label: 'Last 30 days' },
  { value: 'custom', label: 'Between…' },
] as const;

function rangeOf(filters: RunFilters): string {
  if (filters.since === undefined && filters.until === undefined) return '';
  if (typeof filters.since === 'string' && filters.until === undefined) return filters.since;
  return 'custom';
}

function useFlowChoices(flow: string | undefined) {
  const [flows, setFlows] = useState<{ id: string; name: string }[]>([]);
  const [versions, setVersions] = useState<number[]>([]);
  useEffect(() => {
    let live = true;
    trpc.flows.list
      .query()
      .then((list) => live && setFlows(list.map(({ id, name }) => ({ id, name }))))
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, []);
  useEffect(() => {
    let live = true;
    setVersions([]);
    if (flow)
      trpc.flows.versions
        .query({ id: flow })
        .then((list) => live && setVersions(list.map((entry) => entry.version).sort((a, b) => b - a)))
        // A deleted flow has no versions left; its runs still list.
        .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [flow]);
  return { flows, versions };
}

function Toggle({ label, checked, onChange }: { label: string; checked: boolean; onChange(on: boolean): void }) {
  return (
    <label className={`filter-chip${checked ? ' on' : ''}`}>
      <input type="checkbox" checked={checked} onChange={(event) => onChange(event.target.checked)} />
      {label}
    </label>
  );
}

function Group({ legend, children }: { legend: string; children: ReactNode }) {
  return (
    <fieldset className="filter-group">
      <legend className="filter-legend">{legend}</legend>
      {children}
    </fieldset>
  );
}

function toggled<T>(list: readonly T[] | undefined, item: T, on: boolean): T[] | undefined {
  const next = (list ?? []).filter((other) => other !== item);
  if (on) next.push(item);
  return next.length > 0 ? next : undefined;
}

export function FilterBar({ filters, onChange }: { filters: RunFilters; onChange(next: RunFilters): void }) {
  const { flows, versions } = useFlowChoices(filters.flow);
  const backends = useBackends();
  const [text, setText] = useState(filters.q ?? '');
  const [custom, setCustom] = useState(false);
  const latest = useRef({ filters, onChange });
  latest.current = { filters, onChange };

  // The address changed under the box (back button, a link): show what it says — unless it says
  // what the box holds (the address keeps words trimmed; the box keeps the space just typed).
  useEffect(
    () => setText((current) => (current.trim() === (filters.q ?? '') ? current : (filters.q ?? ''))),
    [filters.q],
  );
  useEffect(() => {
    if (text.trim() === (filters.q ?? '')) return;
    const timer = setTimeout(() => latest.current.onChange({ ...latest.current.filters, q: text }), TYPING_MS);
    return () => clearTimeout(timer);
  }, [text, filters.q]);

  const set = (patch: Partial<RunFilters>) => onChange({ ...filters, ...patch });
  const range = custom ? 'custom' : rangeOf(filters);
  const flowListed = !filters.flow || flows.some((flow) => flow.id === filters.flow);

  return (
    <search className="runs-filters" aria-label="Filter runs">
      <input
        type="search"
        className="input runs-search"
        aria-label="Search runs"
        placeholder="Search run input, output and errors"
        value={text}
        onChange={(event) => setText(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === 'Enter') set({ q: text });
        }}
      />
      <select
        className="input small"
        aria-label="Flow"
        value={filters.flow ?? ''}
        onChange={(event) => set({ flow: event.target.value || undefined, version: undefined })}
      >
        <option value="">All flows</option>
        {flows.map((flow) => (
          <option key={flow.id} value={flow.id}>
            {flow.name} ({flow.id})
          </option>
        ))}
        {/* A flow named by the address that is not saved any more: its runs are still there. */}
        {flowListed ? null : <option value={filters.flow}>{filters.flow}</option>}
      </select>
      <select
        className="input small"
        aria-label="Flow version"
        value={filters.version === undefined ? '' : String(filters.version)}
        disabled={!filters.flow}
        title={filters.flow ? undefined : 'Choose a flow first'}
        onChange={(event) => set({ version: event.target.value ? Number(event.target.value) : undefined })}
      >
        <option value="">All versions</option>
        {versions.map((version) => (
          <option key={version} value={version}>
            v{version}
          </option>
        ))}
        {filters.version !== undefined && !versions.includes(filters.version) ? (
          <option value={filters.version}>v{filters.version}</option>
        ) : null}
      </select>
      <select
        className="input small"
        aria-label="Started"
        value={range}
        onChange={(event) => {
          const value = event.target.value;
          setCustom(value === 'custom');
          if (value !== 'custom') set({ since: value || undefined, until: undefined });
        }}
      >
        {RANGES.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
        {RANGES.some((option) => option.value === range) ? null : <option value={range}>Last {range}</option>}
      </select>
      {range === 'custom' ? (
        <span className="runs-range">
          <input
            type="datetime-local"
            className="input small"
            aria-label="Started after"
            value={toLocalInput(typeof filters.since === 'number' ? filters.since : undefined)}
            onChange={(event) => set({ since: fromLocalInput(event.target.value) })}
          />
          <span className="muted small">to</span>
          <input
            type="datetime-local"
            className="input small"
            aria-label="Started before"
            value={toLocalInput(filters.until)}
            onChange={(event) => set({ until: fromLocalInput(event.target.value) })}
          />
        </span>
      ) : null}
      <Group legend="Status">
        {RUN_STATUSES.map((status) => (
          <Toggle
            key={status}
            label={status}
            checked={filters.status?.includes(status) ?? false}
            onChange={(on) => set({ status: toggled(filters.status, status, on) })}
          />
        ))}
      </Group>
      <Group legend="Backend">
        {backends.map((backend) => (
          <Toggle
            key={backend.id}
            label={backend.label}
            checked={filters.backend?.includes(backend.id) ?? false}
            onChange={(on) => set({ backend: toggled(filters.backend, backend.id, on) })}
          />
        ))}
      </Group>
      <Toggle
        label="Include child runs"
        checked={filters.children ?? false}
        onChange={(on) => set({ children: on || undefined })}
      />
      <button
        type="button"
        className="button ghost small"
        aria-label="Clear filters"
        disabled={Object.values(filters).every((value) => value === undefined)}
        onClick={() => {
          setCustom(false);
          setText('');
          onChange({});
        }}
      >
        Clear
      </button>
    </search>
  );
}
