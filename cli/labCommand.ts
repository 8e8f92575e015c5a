/**
 * `jobcheck lab`: writes the lab, one self-contained HTML page where a learner picks a fixture
 * story, predicts each step and sees the reference model (running in the page) answer; or serves
 * it on the loopback interface only, until Ctrl-C. Flags are read once, here, with zod; a bad one
 * is a UsageError naming it, a page that cannot be made a SetupError saying how to fix it.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import type { CliIO } from './args.ts';
import { readFlags } from './args.ts';
import { SetupError, UsageError } from './errors.ts';
import { prepareOutputFile, writeOutput } from './outputs.ts';
import { LAB_DEFAULT_PAGE } from './report/lab/failureStory.ts';
import { LabBundleError } from './report/lab/labBundle.ts';
import { SERVED_CONTRACT_PATH, labDocument, labStories } from './report/lab/labDocument.ts';
import { JOBCHECK_DOCS_DIR } from './report/version.ts';

/** Usage text of `jobcheck lab`. */
export const LAB_USAGE = `Usage: jobcheck lab [--out FILE | --serve [--port N]] [--story NAME]

Writes the lab: one page, working offline, where you pick a fixture story, predict before each
step every job's status and token and the account's balance, then step and see the reference
model (running in the page) answer, the diagram move, the rule that decided it, and your score.
Any step can be edited, inserted or deleted; the four experiments of the queue lab run after your
predictions; the worksheet is saved as a file and exported as a one-page report.
  --out FILE     where to write the page (default .jobcheck/lab/index.html)
  --serve        serve the page on 127.0.0.1 instead of writing it, until Ctrl-C
  --port N       the port to serve on (default: a free one)
  --story NAME   the story the page starts with (default: the first; see jobcheck demo)
  -h, --help     show this text
`;

/** The default page file. */
export const LAB_DEFAULT_OUT = LAB_DEFAULT_PAGE;

const flagsSchema = z
  .strictObject({
    out: z.string().min(1, '--out: needs a file name').optional(),
    serve: z.boolean().optional(),
    port: z
      .string()
      .regex(/^\d+$/, '--port: must be a whole number')
      .transform(Number)
      .pipe(z.int().min(0, '--port: must be at least 0').max(65535, '--port: must be at most 65535'))
      .optional(),
    story: z.string().min(1, '--story: needs a story name').optional(),
    help: z.boolean().optional(),
  })
  .refine((f) => !(f.serve === true && f.out !== undefined), { message: '--out and --serve exclude each other' })
  .refine((f) => f.serve === true || f.port === undefined, { message: '--port needs --serve' });

/** The flags of `jobcheck lab`, read. */
export type LabFlags = z.output<typeof flagsSchema>;

/** Reads the flags of `jobcheck lab`; throws UsageError naming the bad flag or value. Pure apart from the story list. */
export function readLabFlags(argv: readonly string[]): LabFlags {
  const options = {
    out: { type: 'string' },
    serve: { type: 'boolean' },
    port: { type: 'string' },
    story: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  } as const;
  const read = readFlags('lab', argv, options, flagsSchema, { hint: ' (see jobcheck lab --help)' });
  if (read.help) return { help: true };
  const story = read.flags.story;
  if (story !== undefined) {
    const names = labStories().map((s) => s.name);
    if (!names.includes(story))
      throw new UsageError(`lab: --story ${JSON.stringify(story)} is not a story (stories: ${names.join(', ')})`);
  }
  return read.flags;
}

/** Options for running the command in a process of its own making (tests): stop serving when `signal` aborts. */
export interface LabRunOptions {
  readonly signal?: AbortSignal;
}

async function page(story: string | undefined, served: boolean): Promise<Awaited<ReturnType<typeof labDocument>>> {
  try {
    return await labDocument(story, served);
  } catch (error) {
    if (error instanceof LabBundleError)
      throw new SetupError(`lab: ${error.message} (${error.code})`, { cause: error });
    throw error;
  }
}

const kb = (bytes: number): string => `${Math.round(bytes / 1024)} KB`;

/**
 * Serves `html` on 127.0.0.1 until SIGINT, SIGTERM or `signal`, and beside it the contract its
 * rule links point at (the shipped docs/contract.md, as plain text); resolves with 0 when it has stopped.
 */
function serve(html: string, port: number, io: CliIO, signal: AbortSignal | undefined): Promise<number> {
  const body = Buffer.from(html);
  const contract = JOBCHECK_DOCS_DIR === undefined ? undefined : readFileSync(`${JOBCHECK_DOCS_DIR}contract.md`);
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res
        .writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' })
        .end('method not allowed\n');
      return;
    }
    if (path === SERVED_CONTRACT_PATH && contract !== undefined) {
      res.writeHead(200, {
        'content-type': 'text/plain; charset=utf-8',
        'content-length': contract.length,
        'x-content-type-options': 'nosniff',
      });
      res.end(req.method === 'HEAD' ? undefined : contract);
      return;
    }
    if (path !== '/' && path !== '/index.html') {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found: the lab is at /\n');
      return;
    }
    res.writeHead(200, {
      'content-type': 'text/html; charset=utf-8',
      'content-length': body.length,
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
    });
    res.end(req.method === 'HEAD' ? undefined : body);
  });
  return new Promise((resolve, reject) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      signal?.removeEventListener('abort', stop);
      server.close(() => resolve(0));
      server.closeAllConnections();
    };
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new SetupError(`lab: cannot serve on 127.0.0.1 port ${port}: ${error.code ?? error.message}`, { cause: error }),
      ),
    );
    server.listen(port, '127.0.0.1', () => {
      // The address as bound, not as asked for: what the URL says is where the page is.
      const { address, port: bound } = server.address() as AddressInfo;
      io.stdout.write(`jobcheck lab: serving the lab at http://${address}:${bound}/ (Ctrl-C stops)\n`);
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      if (signal?.aborted === true) stop();
      else signal?.addEventListener('abort', stop, { once: true });
    });
  });
}

/** Runs `jobcheck lab`; returns the exit code. */
export async function labCommand(argv: readonly string[], io: CliIO, options: LabRunOptions = {}): Promise<number> {
  const flags = readLabFlags(argv);
  if (flags.help === true) {
    io.stdout.write(LAB_USAGE);
    return 0;
  }
  // The page's file is checked before the page is made: a FIFO or /proc/x costs nothing and blocks nothing.
  const out = flags.serve === true ? undefined : (flags.out ?? LAB_DEFAULT_OUT);
  if (out !== undefined) await prepareOutputFile('lab', 'the page', out);
  const doc = await page(flags.story, out === undefined);
  if (out === undefined) return serve(doc.html, flags.port ?? 0, io, options.signal);
  await writeOutput('lab', 'the page', out, doc.html);
  io.stdout.write(
    `jobcheck lab: wrote ${out} (${kb(Buffer.byteLength(doc.html))}, of which the model ${kb(doc.bundleBytes)}; ${doc.stories.length} stories): open it in a browser\n`,
  );
  return 0;
}
