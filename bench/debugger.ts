/**
 * The run debugger in headless Chromium, on generated data. Runs of 100, 1,000 and 10,000
 * sequential steps and a 200-turn agent loop, and a runs list of 100,000 runs, are written into
 * a SQLite store through its commit (lib/debugger-data.ts); `weft serve` serves that data and the
 * built editor; Debian's Chromium (playwright-core, as the e2e specs) opens it and the page times
 * itself (lib/debugger-browser.ts):
 *
 * - the run view: opening a run (from another screen until every event is on the scrubber and
 *   the canvas is drawn) next to fetching the same run's data alone; moving the scrubber to an
 *   arbitrary event (until the page is drawn and quiet) next to one frame; frames per second
 *   while dragging the scrubber next to the same drag on a bare range input;
 * - the runs screen: its first page (from the flow list until rows are drawn) and a search hit
 *   (Enter in the search box until the run is listed), each next to the same `runs.search`
 *   request made from the page, and the store's own query in this process next to a LIKE scan.
 *   Then the same on PostgreSQL: a throwaway database (from DATABASE_URL, or
 *   postgres://postgres@127.0.0.1:5432/test; dropped at the end) made by `openStore`, the same
 *   runs copied into it in batches, `weft serve` started on it (DATABASE_URL), the runs screen's
 *   first page and search hits measured again. No PostgreSQL reachable: said in the notes.
 *
 * Targets from issue 13: a 1,000-step run opens in under 1 s; scrubbing at 50+ fps; a search over
 * 100,000 runs answers in under 200 ms. Reported, not asserted: exit 0 on a miss, non-zero only
 * when something fails to run. What the run view cannot do yet is said, not measured.
 *
 *   pnpm bench:debugger                 # 100,000 runs in the list; a few minutes (most of it writing)
 *   node bench/debugger.ts --quick      # 20,000 runs, fewer rounds
 *   node bench/debugger.ts --keep       # leave the data folder (its path is printed) to serve by hand
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { parseArgs } from 'node:util';
import { type App, type Browser, ensureWebBuild, launchBrowser, type Page, startApp } from '../e2e/support/app.ts';
import { openSqliteStore, openStore, type RunStore } from '../packages/adapters/src/store/index.ts';
import { type ApiRow, renderApiTable } from './lib/api-table.ts';
import {
  apiSearchMs,
  dragFps,
  fetchRunMs,
  openRunsScreen,
  openRunView,
  scrubTimes,
  searchHit,
} from './lib/debugger-browser.ts';
import {
  COMMON_WORD,
  copyRunsToPostgres,
  FakeClock,
  type ListData,
  RARE_WORD,
  random,
  writeRunList,
  writeStepRuns,
} from './lib/debugger-data.ts';
import { median } from './lib/measure.ts';
import { type BenchDatabase, createBenchDatabase, DEFAULT_PG_URL } from './lib/postgres.ts';

const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
    runs: { type: 'string' },
    'no-pg': { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (args.help) {
  console.log('usage: node bench/debugger.ts [--quick] [--runs N] [--keep] [--no-pg]');
  process.exit(0);
}

const LIST_RUNS = args.runs ? Number(args.runs) : args.quick ? 20_000 : 100_000;
const STEP_SIZES = [100, 1_000, 10_000];
const AGENT_TURNS = 200;
const ROUNDS = args.quick ? 2 : 5;
const DRAG_MS = args.quick ? 1500 : 3000;
const OPEN_TIMEOUT_MS = 60_000;
const TARGET_OPEN_MS = 1000;
const TARGET_FPS = 50;
const TARGET_SEARCH_MS = 200;

const progress = (message: string) => process.stderr.write(`bench: ${message}\n`);

/** Something the server or the run view cannot do yet: said in the notes, the rest still printed. */
class Skip extends Error {}
const rows: ApiRow[] = [];
const notes: string[] = [];

async function timed<T>(work: () => Promise<T>): Promise<[T, number]> {
  const start = performance.now();
  const value = await work();
  return [value, performance.now() - start];
}

async function medianOf(rounds: number, once: () => Promise<number>): Promise<number> {
  const values: number[] = [];
  for (let i = 0; i < rounds; i++) values.push(await once());
  return median(values.filter((value) => !Number.isNaN(value)));
}

const dir = mkdtempSync(join(tmpdir(), 'weft-bench-debugger-'));
let app: App | undefined;
let browser: Browser | undefined;
let database: BenchDatabase | undefined;
const stop = async () => {
  await browser?.close().catch(() => undefined);
  await app?.stop();
  await database?.drop().catch((error: Error) => console.error(`dropping the bench database: ${error.message}`));
  if (!args.keep) rmSync(dir, { recursive: true, force: true });
};
process.once('SIGINT', () => void stop().then(() => process.exit(130)));

try {
  console.log(
    `debugger bench — ${cpus().length} × ${cpus()[0]?.model ?? '?'}, Node ${process.version}, load ${loadavg()
      .map((n) => n.toFixed(2))
      .join(' ')}`,
  );
  progress(`editor build: ${ensureWebBuild()}`);

  // 1. The data, written through the store as a backend would write it.
  const store = await openSqliteStore(join(dir, 'weft.db'));
  const end = Date.now();
  const clock = new FakeClock(end - 31 * 86_400_000);
  clock.install();
  let list: Awaited<ReturnType<typeof writeRunList>>;
  let stepRuns: Awaited<ReturnType<typeof writeStepRuns>>;
  try {
    const [runs, stepMs] = await timed(() => writeStepRuns(store, clock, STEP_SIZES, AGENT_TURNS));
    stepRuns = runs;
    progress(`step runs written in ${(stepMs / 1000).toFixed(1)} s`);
    const [written, listMs] = await timed(() =>
      writeRunList(store, clock, LIST_RUNS, end, (done) => progress(`${done.toLocaleString('en-US')} runs written`)),
    );
    list = written;
    notes.push(
      `data: ${LIST_RUNS.toLocaleString('en-US')} list runs written in ${(listMs / 1000).toFixed(0)} s ` +
        `(${((listMs * 1000) / LIST_RUNS).toFixed(0)} µs/run: create, two commits, update)`,
    );
  } finally {
    clock.uninstall();
  }

  // 2. The store's own search, in this process, next to a scan without an index.
  const storeMs = (query: Parameters<RunStore['searchRuns']>[0]) => storeSearchMs(store, query);
  const rawDb = new DatabaseSync(join(dir, 'weft.db'), { readOnly: true });
  const like = rawDb.prepare(
    'select id from runs where input like ? or output like ? order by created_at desc, id desc limit 100',
  );
  const likeMs = await medianOf(ROUNDS, async () => {
    const start = performance.now();
    like.all(`%${RARE_WORD}%`, `%${RARE_WORD}%`);
    return performance.now() - start;
  });
  rawDb.close();
  const storeRare = await storeMs({ text: RARE_WORD, rootOnly: true, limit: 100 });
  rows.push({
    id: 'S1',
    what: `SQLite: store.searchRuns, a word in 1 of ${LIST_RUNS.toLocaleString('en-US')} runs (in process)`,
    unit: 'ms',
    value: storeRare,
    baseline: likeMs,
    baselineWhat: '(LIKE scan)',
    target: { below: TARGET_SEARCH_MS },
  });
  rows.push({
    id: 'S2',
    what: 'SQLite: store.searchRuns, first page, no filter (in process)',
    unit: 'ms',
    value: await storeMs({ rootOnly: true, limit: 100 }),
  });
  await store.close();

  // 3. The server on that data, and the browser.
  app = await startApp({ dataDir: dir, env: { WEFT_LOG_LEVEL: 'warn' }, timeoutMs: 120_000 });
  browser = await launchBrowser();
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, deviceScaleFactor: 1 });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  notes.push(`browser: Chromium ${browser.version()} headless, 1440×900`);
  const home = async () => {
    await page.goto(`${app!.url}#/`, { waitUntil: 'load' });
    await page.getByRole('heading', { name: 'Flows' }).waitFor({ timeout: 30_000 });
  };

  // 4. The run view.
  const pick = random(7);
  const fallbackSlider = new Set<string>();
  for (const run of stepRuns) {
    progress(`run view: ${run.label} (${run.events.toLocaleString('en-US')} events)`);
    let slider: string = 'none';
    let drawn = '';
    const open = await medianOf(ROUNDS, async () => {
      await home();
      const result = await openRunView(page, run.runId, run.events, OPEN_TIMEOUT_MS);
      slider = result.slider;
      drawn = `${result.nodes} canvas nodes and ${result.bars} timeline bars in the DOM`;
      return result.ms;
    });
    const fetched = await fetchRunMs(page, run.runId);
    if (Number.isNaN(open)) {
      notes.push(
        `${run.label}: the run view did not show ${run.events} events on a scrubber within ${OPEN_TIMEOUT_MS / 1000} s (${slider}); not measured`,
      );
      continue;
    }
    if (slider === 'fallback') fallbackSlider.add(run.label);
    notes.push(`${run.label}: once open, ${drawn}`);
    rows.push({
      id: `R${rows.length + 1}`,
      what: `open the run view: ${run.label}`,
      unit: 'ms',
      value: open,
      baseline: fetched.ms,
      baselineWhat: `(${fetched.how} only)`,
      ...(run.steps === 1000 ? { target: { below: TARGET_OPEN_MS } } : {}),
    });
    const targets = Array.from({ length: ROUNDS + 2 }, () => Math.floor(pick() * run.events));
    const scrubs = (await scrubTimes(page, targets)).filter((ms) => !Number.isNaN(ms));
    const bare = await dragFps(page, DRAG_MS, true);
    if (scrubs.length === 0) notes.push(`${run.label}: moving the scrubber changed nothing on the page`);
    else
      rows.push({
        id: `R${rows.length + 1}`,
        what: `scrubber to an arbitrary event: ${run.label} (max ${Math.max(...scrubs).toFixed(0)} ms)`,
        unit: 'ms',
        value: median(scrubs),
        baseline: 1000 / bare.fps,
        baselineWhat: '(one frame)',
      });
    const drag = await dragFps(page, DRAG_MS, false);
    rows.push({
      id: `R${rows.length + 1}`,
      what: `dragging the scrubber: ${run.label} (p95 frame ${drag.p95FrameMs.toFixed(0)} ms)`,
      unit: 'fps',
      value: drag.fps,
      baseline: bare.fps,
      baselineWhat: '(bare range input)',
      target: { atLeast: TARGET_FPS },
    });
  }

  if (fallbackSlider.size > 0)
    notes.push(
      `no slider named "Event position" in the run view yet (${[...fallbackSlider].join(', ')}): measured on its range input`,
    );

  // 5. The runs screen, on SQLite.
  await measureRunsScreen('SQLite', home, page, list);

  // Virtualised: scrolled through many pages, the DOM still holds about a screenful of rows.
  await home();
  await openRunsScreen(page, '#/runs', 30_000);
  const scroller = page.locator('.runs-scroller');
  for (let i = 0; i < 40; i++) {
    await scroller.evaluate((element) => element.scrollTo(0, element.scrollHeight));
    await page.waitForTimeout(50);
  }
  const domRows = await page.locator('table[aria-label="Runs"] tbody tr[data-run-id]').count();
  const totalHeight = await scroller.evaluate((element) => element.scrollHeight);
  // Every loaded row takes its 40 px of the scroll height (the header 32 px, "Scroll for more" ~40 px).
  const loaded = Math.round((totalHeight - 32 - 40) / 40);
  notes.push(
    `runs screen scrolled to its end 40 times: about ${loaded.toLocaleString('en-US')} runs loaded, ${domRows} rows in the DOM`,
  );

  // 6. The same runs on PostgreSQL: the runs screen again, `weft serve` on DATABASE_URL.
  if (args['no-pg']) notes.push('PostgreSQL: not measured (--no-pg)');
  else {
    try {
      database = await createBenchDatabase(process.env.DATABASE_URL || DEFAULT_PG_URL);
    } catch (error) {
      notes.push(`PostgreSQL: not measured, no server (${(error as Error).message})`);
    }
  }
  if (database) {
    await app.stop();
    app = undefined;
    progress('PostgreSQL: copying the runs');
    const pgStore = await openStore({ url: database.url });
    const [copied, copyMs] = await timed(() => copyRunsToPostgres(join(dir, 'weft.db'), database!.url));
    notes.push(
      `PostgreSQL ${database.serverVersion}: ${(copied.runs ?? 0).toLocaleString('en-US')} runs copied from the SQLite ` +
        `store in ${(copyMs / 1000).toFixed(1)} s (batched INSERT … unnest, then ANALYZE); run logs not copied`,
    );
    rows.push({
      id: 'S3',
      what: `PostgreSQL: store.searchRuns, a word in 1 of ${LIST_RUNS.toLocaleString('en-US')} runs (in process)`,
      unit: 'ms',
      value: await storeSearchMs(pgStore, { text: RARE_WORD, rootOnly: true, limit: 100 }),
      target: { below: TARGET_SEARCH_MS },
    });
    await pgStore.close();
    app = await startApp({
      dataDir: dir,
      env: { WEFT_LOG_LEVEL: 'warn', DATABASE_URL: database.url },
      timeoutMs: 120_000,
    });
    await measureRunsScreen('PostgreSQL', home, page, list);
  }
  if (errors.length > 0) notes.push(`page errors: ${errors.slice(0, 3).join(' | ')}`);
  report();
} catch (error) {
  if (error instanceof Skip) {
    notes.push(error.message);
    report();
  } else {
    console.error(error);
    if (app) console.error(app.output().slice(-3000));
    process.exitCode = 1;
  }
} finally {
  await stop();
}

function storeSearchMs(store: RunStore, query: Parameters<RunStore['searchRuns']>[0]): Promise<number> {
  return medianOf(ROUNDS, async () => (await timed(() => store.searchRuns(query)))[1]);
}

/** The runs screen's first page and search hits, each next to the same `runs.search` request alone. */
async function measureRunsScreen(
  dialect: 'SQLite' | 'PostgreSQL',
  home: () => Promise<void>,
  page: Page,
  list: ListData,
): Promise<void> {
  progress(`runs screen (${dialect})`);
  const id = dialect === 'SQLite' ? 'L' : 'P';
  await home();
  const probe = await apiSearchMs(page, { rootOnly: true, limit: 1 });
  if (probe.rows < 0) throw new Skip('the server has no runs.search yet: the runs screen is not measured');
  const api = (input: Record<string, unknown>) => medianOf(ROUNDS, async () => (await apiSearchMs(page, input)).ms);
  await home();
  const firstPage = await medianOf(ROUNDS, async () => {
    await home();
    return (await openRunsScreen(page, '#/runs', 30_000)).ms;
  });
  rows.push({
    id: `${id}1`,
    what: `${dialect}: runs screen, first page of ${LIST_RUNS.toLocaleString('en-US')} runs`,
    unit: 'ms',
    value: firstPage,
    baseline: await api({ rootOnly: true, limit: 100 }),
    baselineWhat: '(runs.search only)',
    target: { below: TARGET_SEARCH_MS },
  });
  const search = async (word: string, expect: string) =>
    medianOf(ROUNDS, async () => {
      await home();
      await openRunsScreen(page, '#/runs', 30_000);
      return (await searchHit(page, word, expect, 30_000)).ms;
    });
  rows.push({
    id: `${id}2`,
    what: `${dialect}: search hit, a word in 1 of ${LIST_RUNS.toLocaleString('en-US')} runs`,
    unit: 'ms',
    value: await search(RARE_WORD, list.rareRunId),
    baseline: await api({ text: RARE_WORD, rootOnly: true, limit: 100 }),
    baselineWhat: '(runs.search only)',
    target: { below: TARGET_SEARCH_MS },
  });
  rows.push({
    id: `${id}3`,
    what: `${dialect}: search hit, a word in ${list.commonRuns.toLocaleString('en-US')} runs (first page)`,
    unit: 'ms',
    value: await search(COMMON_WORD, list.newestCommonRunId),
    baseline: await api({ text: COMMON_WORD, rootOnly: true, limit: 100 }),
    baselineWhat: '(runs.search only)',
    target: { below: TARGET_SEARCH_MS },
  });
}

function report() {
  console.log(`\n${renderApiTable(rows)}\n`);
  for (const note of notes) console.log(`- ${note}`);
  console.log(
    '- open: from the flow list (#/) to the run view with every event on the scrubber and the canvas drawn, ' +
      'one more frame; scrub: value set + input event until a frame passes with no DOM change; drag: one move per frame',
  );
  if (args.keep) console.log(`- data kept in ${dir} (WEFT_DATA=${dir} pnpm weft serve)`);
}
