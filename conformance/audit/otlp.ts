/**
 * Reads OpenTelemetry traces in OTLP JSON (one ExportTraceServiceRequest a line, the form a
 * Collector's file exporter writes: resourceSpans → scopeSpans → spans) as the audit's events.
 * Two vocabularies are translated, never repaired:
 * - BullMQ's own spans (bullmq-otel; `bullmq.queue.operation`): `add` a submit; `process` a claim
 *   (its `bullmq.job.processed.timestamp` the invoke); `complete` an ack, `fail` / `retry` /
 *   `delay` a fail (an `exception` event whose `exception.type` is BullMQ's lost-lock code -1, -2,
 *   -3 or -6 is `stale_token`, any other `unknown`; the worker is the process span's, else the
 *   resource's `service.instance.id`); `moveStalledJobsToWait`'s `job stalled` events
 *   a broker `redelivered`.
 * - The messaging semantic conventions (the names of @opentelemetry/semantic-conventions 1.45.0,
 *   and the older ones @opentelemetry/instrumentation-amqplib 0.70.0 writes): a PRODUCER span (or
 *   `messaging.operation[.type]` publish/create/send) a submit of `messaging.message.id` (or
 *   `messaging.message_id`); a CONSUMER span of process/deliver/receive a claim at its start and
 *   its settlement at its end: an ack, or a fail when its status is an error naming nack or reject
 *   (`without requeue`: dead), nothing when the channel closed under it.
 * No span carries a delivery token or a lease deadline, nor an account or idempotency key: the
 * header event names them absent (absent.ts). A span is exported when it ends, so a delivery whose
 * worker died never appears. One file's spans are held in memory (at most MAX_SPANS).
 */
import { z } from 'zod';
import { HISTORY_FORMAT } from '../../contract/history.ts';
import type { AbsentField } from './absent.ts';
import { boundedLines, issueText, jsonOfLine, type ReadEvent } from './read.ts';
import type { AuditOp } from './types.ts';
import { HistoryFileError } from './types.ts';

/** Longest line read: one export request (a batch of spans). */
export const MAX_OTLP_LINE_BYTES = 16 * 1024 * 1024;
/** Most spans one file may hold. */
export const MAX_SPANS = 500_000;

const short = z.string().max(4096, 'must be at most 4096 characters');
const nanos = z.union([
  z.string().regex(/^\d{1,20}$/, 'must be a decimal number of nanoseconds'),
  z.int().min(0, 'must be >= 0'),
]);
const scalar = z.object({
  stringValue: short.optional(),
  intValue: z.union([z.string().regex(/^-?\d{1,20}$/, 'must be a decimal integer'), z.int()]).optional(),
  doubleValue: z.number().optional(),
  boolValue: z.boolean().optional(),
});
const anyValue = scalar.extend({ arrayValue: z.object({ values: z.array(scalar).max(10_000) }).optional() });
const attributes = z.array(z.object({ key: short, value: anyValue.optional() })).max(10_000);
const kind = z.union([
  z.int().min(0).max(5),
  z.enum([
    'SPAN_KIND_UNSPECIFIED',
    'SPAN_KIND_INTERNAL',
    'SPAN_KIND_SERVER',
    'SPAN_KIND_CLIENT',
    'SPAN_KIND_PRODUCER',
    'SPAN_KIND_CONSUMER',
  ]),
]);
const span = z.object({
  spanId: z.string().regex(/^[0-9a-fA-F]{16}$/, 'must be 16 hex digits'),
  parentSpanId: z
    .string()
    .regex(/^([0-9a-fA-F]{16})?$/, 'must be 16 hex digits or empty')
    .optional(),
  name: short,
  kind: kind.optional(),
  startTimeUnixNano: nanos,
  endTimeUnixNano: nanos,
  attributes: attributes.optional(),
  events: z
    .array(z.object({ timeUnixNano: nanos, name: short, attributes: attributes.optional() }))
    .max(10_000)
    .optional(),
  status: z
    .object({
      code: z
        .union([z.int().min(0).max(2), z.enum(['STATUS_CODE_UNSET', 'STATUS_CODE_OK', 'STATUS_CODE_ERROR'])])
        .optional(),
      message: short.optional(),
    })
    .optional(),
});
/** One line of an OTLP JSON trace file. Unknown fields are passed over: OTLP grows. */
export const otlpTraceRequestSchema = z.object({
  resourceSpans: z.array(
    z.object({
      resource: z.object({ attributes: attributes.optional() }).optional(),
      scopeSpans: z.array(z.object({ spans: z.array(span) })),
    }),
  ),
});

type Span = z.infer<typeof span>;
type Value = string | number | boolean | readonly (string | number | boolean)[];
type Attrs = ReadonlyMap<string, Value>;

function scalarOf(v: z.infer<typeof scalar>): string | number | boolean | undefined {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  return v.boolValue;
}

function attrsOf(list: z.infer<typeof attributes> | undefined): Attrs {
  const map = new Map<string, Value>();
  for (const a of list ?? []) {
    if (a.value === undefined) continue;
    const v = a.value.arrayValue
      ? a.value.arrayValue.values.map(scalarOf).filter((x) => x !== undefined)
      : scalarOf(a.value);
    if (v !== undefined) map.set(a.key, v);
  }
  return map;
}

const str = (a: Attrs, ...keys: string[]): string | undefined => {
  for (const k of keys) {
    const v = a.get(k);
    if ((typeof v === 'string' && v !== '') || typeof v === 'number') return String(v);
  }
  return undefined;
};

/** Milliseconds of a nanosecond stamp, rounded `down` or up (an interval only widens). Pure. */
const ms = (n: string | number, down: boolean): number => (down ? Math.floor : Math.ceil)(Number(n) / 1e6);

const KINDS = ['unspecified', 'internal', 'server', 'client', 'producer', 'consumer'] as const;
const kindOf = (s: Span): (typeof KINDS)[number] =>
  typeof s.kind === 'number'
    ? (KINDS[s.kind] ?? 'unspecified')
    : ((s.kind?.replace('SPAN_KIND_', '').toLowerCase() as (typeof KINDS)[number] | undefined) ?? 'unspecified');
const isError = (s: Span): boolean => s.status?.code === 2 || s.status?.code === 'STATUS_CODE_ERROR';

/** BullMQ's lost-lock error codes (adapters/bullmq-postgres/finish.ts), as `exception.type` carries them. */
const LOST_LOCK = new Set(['-1', '-2', '-3', '-6']);

/** A span with where it came from. */
interface Read {
  readonly span: Span;
  readonly attrs: Attrs;
  readonly resource: Attrs;
  readonly line: number;
}

type Fields = Partial<Omit<AuditOp, 'file' | 'lines'>> & Pick<AuditOp, 'kind' | 'id' | 'outcome' | 'invokedAt'>;

function op(file: string, line: number, f: Fields): AuditOp {
  return {
    file,
    job: undefined,
    token: undefined,
    account: undefined,
    key: undefined,
    payloadHash: undefined,
    attempt: undefined,
    leaseUntil: undefined,
    deadline: undefined,
    applied: undefined,
    next: undefined,
    worker: undefined,
    host: undefined,
    returnedAt: f.outcome === 'unknown' ? undefined : f.invokedAt,
    ...f,
    lines: [line],
  };
}

/** The outcome of a BullMQ finish span: its exception events, as BullMQ's error codes say. Pure. */
function bullmqOutcome(s: Span): string {
  const thrown = (s.events ?? []).filter((e) => e.name === 'exception').map((e) => attrsOf(e.attributes));
  if (thrown.length === 0) return 'ok';
  return thrown.some((a) => LOST_LOCK.has(str(a, 'exception.type') ?? '')) ? 'stale_token' : 'unknown';
}

/** The operations of one BullMQ span (`workerOf` finds the process span a finish span ran in). */
function bullmqOps(file: string, r: Read, workerOf: (id: string | undefined) => string | undefined): AuditOp[] {
  const { span: s, attrs: a } = r;
  const job = str(a, 'bullmq.job.id');
  const start = ms(s.startTimeUnixNano, true);
  const end = ms(s.endTimeUnixNano, false);
  const host = str(r.resource, 'host.name');
  const base = { id: s.spanId, job, host };
  switch (str(a, 'bullmq.queue.operation')) {
    case 'add':
      return [
        op(file, r.line, { ...base, kind: 'submit', invokedAt: start, returnedAt: end, outcome: bullmqOutcome(s) }),
      ];
    case 'process': {
      const processed = a.get('bullmq.job.processed.timestamp');
      const invokedAt = typeof processed === 'number' && processed <= start ? processed : start;
      const worker = str(a, 'bullmq.worker.name', 'bullmq.worker.id') ?? str(r.resource, 'service.instance.id');
      return [op(file, r.line, { ...base, kind: 'claim', invokedAt, returnedAt: start, outcome: 'ok', worker })];
    }
    case 'complete':
    case 'fail':
    case 'retry':
    case 'delay': {
      const outcome = bullmqOutcome(s);
      const kind = str(a, 'bullmq.queue.operation') === 'complete' ? 'ack' : 'fail';
      const next = kind === 'ack' ? undefined : str(a, 'bullmq.queue.operation') === 'fail' ? 'dead' : 'retry';
      return [
        op(file, r.line, {
          ...base,
          kind,
          invokedAt: start,
          returnedAt: end,
          outcome,
          worker: workerOf(s.parentSpanId) ?? str(r.resource, 'service.instance.id'),
          ...(next === undefined || outcome !== 'ok' ? {} : { next }),
        }),
      ];
    }
    case 'moveStalledJobsToWait':
      return (s.events ?? [])
        .filter((e) => e.name === 'job stalled')
        .flatMap((e, i) => {
          const stalled = str(attrsOf(e.attributes), 'bullmq.job.id');
          const at = ms(e.timeUnixNano, true);
          return stalled === undefined
            ? []
            : [
                op(file, r.line, {
                  id: `${s.spanId}:${i}`,
                  kind: 'redelivered',
                  job: stalled,
                  host,
                  invokedAt: at,
                  outcome: 'ok',
                }),
              ];
        });
    default:
      return [];
  }
}

/** The operations of one span of the messaging semantic conventions. Pure. */
function messagingOps(file: string, r: Read): AuditOp[] {
  const { span: s, attrs: a } = r;
  const operation = str(a, 'messaging.operation.type', 'messaging.operation');
  const job = str(a, 'messaging.message.id', 'messaging.message_id');
  const start = ms(s.startTimeUnixNano, true);
  const end = ms(s.endTimeUnixNano, false);
  const worker = str(r.resource, 'service.instance.id');
  const base = { job, worker, host: str(r.resource, 'host.name') };
  const k = kindOf(s);
  if (
    operation === 'publish' ||
    operation === 'create' ||
    operation === 'send' ||
    (operation === undefined && k === 'producer')
  )
    return [
      op(file, r.line, {
        ...base,
        id: s.spanId,
        kind: 'submit',
        invokedAt: start,
        returnedAt: end,
        outcome: isError(s) ? 'unknown' : 'ok',
      }),
    ];
  const delivery = operation === 'process' || operation === 'deliver' || operation === 'receive';
  if (!(k === 'consumer' && (delivery || operation === undefined)) && operation !== 'settle') return [];
  const ops: AuditOp[] = [];
  if (operation !== 'settle')
    ops.push(
      op(file, r.line, {
        ...base,
        id: `${s.spanId}:claim`,
        kind: 'claim',
        invokedAt: start,
        returnedAt: start,
        outcome: 'ok',
      }),
    );
  const message = s.status?.message ?? '';
  if (isError(s) && /^channel (closed|error)/.test(message)) return ops; // no settlement: the broker redelivers
  const failed = isError(s) && /^(nack|reject|nackAll)\b/.test(message);
  const settled = {
    ...base,
    id: `${s.spanId}:settle`,
    invokedAt: start,
    returnedAt: end,
    outcome: isError(s) && !failed ? 'unknown' : 'ok',
  };
  ops.push(
    op(
      file,
      r.line,
      failed
        ? { ...settled, kind: 'fail', next: /without requeue/.test(message) ? 'dead' : 'retry' }
        : { ...settled, kind: 'ack' },
    ),
  );
  return ops;
}

/** Reads one file's spans, each line validated once; throws HistoryFileError naming the line and value. */
async function readSpans(
  source: AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>,
  file: string,
): Promise<{ spans: Read[]; lines: number }> {
  const spans: Read[] = [];
  let lines = 0;
  for await (const { text, line } of boundedLines(source, file, MAX_OTLP_LINE_BYTES)) {
    lines = line;
    if (text.trim() === '') continue;
    const value = jsonOfLine(text, file, line);
    const read = otlpTraceRequestSchema.safeParse(value);
    if (!read.success)
      throw new HistoryFileError(
        'not_otlp',
        `${file}:${line}: ${issueText(read.error, value)}; an OTLP JSON trace request is {"resourceSpans":[{"scopeSpans":[{"spans":[...]}]}]}`,
        line,
      );
    for (const rs of read.data.resourceSpans) {
      const resource = attrsOf(rs.resource?.attributes);
      for (const ss of rs.scopeSpans)
        for (const s of ss.spans) {
          if (spans.length >= MAX_SPANS)
            throw new HistoryFileError(
              'too_many_spans',
              `${file}:${line}: more than ${MAX_SPANS} spans in one file`,
              line,
            );
          if (BigInt(s.endTimeUnixNano) < BigInt(s.startTimeUnixNano))
            throw new HistoryFileError(
              'returned_before_invoked',
              `${file}:${line}: span ${s.spanId} ends at ${s.endTimeUnixNano}, before its start ${s.startTimeUnixNano}`,
              line,
            );
          spans.push({ span: s, attrs: attrsOf(s.attributes), resource, line });
        }
    }
  }
  return { spans, lines };
}

/** The fields no operation of `ops` that needs one carries. Pure. */
function absentFields(ops: readonly AuditOp[]): AbsentField[] {
  const claims = ops.filter((o) => o.kind === 'claim');
  const settles = ops.filter((o) => o.kind === 'ack' || o.kind === 'fail');
  const absent: AbsentField[] = [];
  if (claims.some((o) => o.token === undefined)) absent.push('token');
  if (claims.some((o) => o.leaseUntil === undefined)) absent.push('leaseUntil');
  if ([...claims, ...settles].some((o) => o.worker === undefined)) absent.push('worker');
  if (ops.every((o) => o.account === undefined)) absent.push('account');
  if (ops.every((o) => o.key === undefined)) absent.push('key');
  return absent;
}

/**
 * Reads an OTLP JSON trace file as the audit's events: a header naming the absent fields, the
 * operations in time order, then the end. Throws HistoryFileError for a file that is no OTLP JSON.
 */
export async function* readOtlp(
  source: AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>,
  file: string,
): AsyncGenerator<ReadEvent> {
  const { spans, lines } = await readSpans(source, file);
  const byId = new Map(spans.map((r) => [r.span.spanId, r]));
  const workerOf = (id: string | undefined): string | undefined => {
    const parent = id === undefined ? undefined : byId.get(id);
    return parent === undefined ? undefined : str(parent.attrs, 'bullmq.worker.name', 'bullmq.worker.id');
  };
  const ops = spans.flatMap((r) =>
    r.attrs.has('bullmq.queue.operation') ? bullmqOps(file, r, workerOf) : messagingOps(file, r),
  );
  ops.sort((x, y) => (x.returnedAt ?? x.invokedAt) - (y.returnedAt ?? y.invokedAt));
  yield {
    type: 'header',
    header: { type: 'header', format: HISTORY_FORMAT, source: 'otlp' },
    line: 0,
    absent: absentFields(ops),
  };
  for (const o of ops) yield { type: 'op', op: o, line: o.lines[0] ?? 0 };
  yield { type: 'end', complete: true, lines };
}
