/**
 * OpenTelemetry tracing for the walkthrough's processes (scripts/auditWalkthrough.ts): BullMQ's
 * own spans (bullmq-otel) exported as OTLP JSON, one ExportTraceServiceRequest a line, the form an
 * OpenTelemetry Collector's file exporter writes. Each span is written synchronously when it ends,
 * so a process killed later loses none that ended; a span that had not ended is never written.
 * The repository's own folder is cut out of stack traces (the files are committed as docs).
 */
import { appendFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { trace } from '@opentelemetry/api';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { BullMQOtel } from 'bullmq-otel';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** A span exporter that appends OTLP JSON lines to `file`. */
class OtlpJsonFileExporter implements SpanExporter {
  constructor(private readonly file: string) {}
  export(spans: ReadableSpan[], done: (result: { code: number }) => void): void {
    const bytes = JsonTraceSerializer.serializeRequest(spans);
    if (bytes !== undefined) appendFileSync(this.file, `${Buffer.from(bytes).toString('utf8').replaceAll(ROOT, '')}\n`);
    done({ code: 0 });
  }
  async shutdown(): Promise<void> {}
}

/** Registers a tracer provider writing to `file`; returns BullMQ's telemetry and a shutdown. */
export function otlpTelemetry(
  file: string,
  instance: string,
  host: string,
): { telemetry: BullMQOtel; shutdown: () => Promise<void> } {
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({
      'service.name': 'audit-walkthrough',
      'service.instance.id': instance,
      'host.name': host,
    }),
    spanProcessors: [new SimpleSpanProcessor(new OtlpJsonFileExporter(file))],
  });
  trace.setGlobalTracerProvider(provider);
  return { telemetry: new BullMQOtel({ tracerName: 'bullmq' }), shutdown: () => provider.shutdown() };
}
