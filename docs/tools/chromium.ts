/**
 * A headless Chromium for the tools and tests that look at a rendered page: the coverage page's
 * layout test and the screenshots of docs/images/. It drives the system's own browser (Debian's
 * `chromium` package; `.ci/run` installs it) through playwright-core, which never downloads one.
 *
 * Every session gets a fresh profile in a temporary folder, no network (every request the page
 * makes is refused and counted, so a page that is not self-contained is seen), and a deadline:
 * the browser is closed when the work is done, when it throws, and when the deadline passes.
 * Tests that need the browser wrap themselves in describeWithChromium (needsChromium.ts).
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import type { BrowserContext, Page } from 'playwright-core';

/** Where Debian's package puts the browser; used when `which` finds none. */
export const DEFAULT_CHROMIUM = '/usr/bin/chromium';
/** How to install the browser when it is missing, for error messages. */
export const INSTALL_HINT =
  'install it with `sudo apt-get install -y chromium` (Debian), or set JOBCHECK_CHROMIUM to a Chromium or Chrome executable';

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** The browser was not found, or would not start; the message says how to install it. */
export class ChromiumUnavailableError extends Error {
  override name = 'ChromiumUnavailableError' as const;
}

/** The Chromium executable: $JOBCHECK_CHROMIUM, else the first of chromium, chromium-browser on the PATH, else DEFAULT_CHROMIUM. */
export function chromiumPath(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env['JOBCHECK_CHROMIUM'];
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  for (const name of ['chromium', 'chromium-browser']) {
    const found = spawnSync('which', [name], { encoding: 'utf8', env });
    const path = found.status === 0 ? found.stdout.trim() : '';
    if (path !== '') return path;
  }
  return DEFAULT_CHROMIUM;
}

/**
 * Why the tests that render a page in Chromium cannot run here (no browser at chromiumPath()), or
 * undefined when there is one. A browser that is there but will not start is not "missing": its
 * tests run and fail, saying why.
 */
export function chromiumMissing(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const path = chromiumPath(env);
  if (isExecutableFile(path)) return undefined;
  return `no Chromium at ${path}: ${INSTALL_HINT}`;
}

/** Whether `path` is a regular file this process may run (a device or folder in its place is no browser). */
function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Whether a missing browser must fail the run (in CI, `CI` set) rather than skip the tests that need it. */
export const chromiumRequired = (env: NodeJS.ProcessEnv = process.env): boolean => (env['CI'] ?? '') !== '';

/** Options of a browser session. */
export interface PageOptions {
  readonly width: number;
  readonly height: number;
  /** The whole session's deadline, launch included (default 60 s). */
  readonly timeoutMs?: number;
}

/** What a session returned, and the requests its page tried to make (all refused). */
export interface PageSession<T> {
  readonly result: T;
  readonly requests: readonly string[];
}

/**
 * Runs `work` on a fresh page of a headless Chromium with the given viewport, then closes the
 * browser (also on error and at the deadline) and removes its profile.
 */
export async function withChromiumPage<T>(
  options: PageOptions,
  work: (page: Page) => Promise<T>,
): Promise<PageSession<T>> {
  const executablePath = chromiumPath();
  if (!isExecutableFile(executablePath))
    throw new ChromiumUnavailableError(`Chromium not found at ${executablePath}: ${INSTALL_HINT}`);
  const timeoutMs = options.timeoutMs ?? 60_000;
  const profile = await mkdtemp(join(tmpdir(), 'jobcheck-chromium-'));
  const requests: string[] = [];
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the browser session took longer than ${timeoutMs} ms`)), timeoutMs);
  });
  // Launching has its own timeout, so this promise settles even when the deadline wins the race,
  // and the browser it started is closed below.
  const launching: Promise<BrowserContext> = chromium
    .launchPersistentContext(profile, {
      executablePath,
      args: FLAGS,
      headless: true,
      viewport: { width: options.width, height: options.height },
      deviceScaleFactor: 1,
      timeout: timeoutMs,
    })
    .catch((error: Error) => {
      throw new ChromiumUnavailableError(
        `Chromium at ${executablePath} did not start (${error.message.split('\n')[0]}): ${INSTALL_HINT}`,
        { cause: error },
      );
    });
  try {
    const session = async (): Promise<T> => {
      const context = await launching;
      await context.route('**/*', async (route) => {
        requests.push(route.request().url());
        await route.abort();
      });
      const page = context.pages()[0] ?? (await context.newPage());
      page.setDefaultTimeout(timeoutMs);
      return work(page);
    };
    const result = await Promise.race([session(), deadline]);
    return { result, requests };
  } finally {
    clearTimeout(timer);
    const context = await launching.catch(() => undefined);
    await context?.close().catch(() => undefined);
    await rm(profile, { recursive: true, force: true });
  }
}
