/**
 * Traffic on RabbitMQ under @opentelemetry/instrumentation-amqplib, for otlp.test.ts, run as
 * `node --import tsx otlpTraffic.ts <amqp-url>`: three messages published with a message id; m1
 * acked, m2 rejected without requeue, m3 nacked with requeue then acked on its redelivery. Prints
 * the finished spans as one OTLP JSON line (an ExportTraceServiceRequest). Exit code 0, or 1.
 */
import { createRequire } from 'node:module';
import { trace } from '@opentelemetry/api';
import { AmqplibInstrumentation } from '@opentelemetry/instrumentation-amqplib';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';

const url = process.argv[2] ?? '';
const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({
  resource: resourceFromAttributes({ 'service.instance.id': 'c1' }),
  spanProcessors: [new SimpleSpanProcessor(exporter)],
});
trace.setGlobalTracerProvider(provider);
const instrumentation = new AmqplibInstrumentation();
instrumentation.setTracerProvider(provider);
instrumentation.enable();
// amqplib is CommonJS: required after enable(), it is the instrumented module.
const amqp = createRequire(import.meta.url)('amqplib') as typeof import('amqplib');
const connection = await amqp.connect(url);
try {
  const channel = await connection.createChannel();
  const queue = `otlp-${process.pid}-${Date.now()}`;
  await channel.assertQueue(queue, { exclusive: true });
  for (const id of ['m1', 'm2', 'm3']) channel.sendToQueue(queue, Buffer.from(id), { messageId: id });
  const timer = setTimeout(() => {
    process.stderr.write('otlpTraffic: the messages did not all come back within 10 s\n');
    process.exit(1);
  }, 10_000);
  await new Promise<void>((resolve) => {
    void channel.consume(queue, (msg) => {
      if (msg === null) return;
      const id = msg.properties.messageId as string;
      if (id === 'm1') channel.ack(msg);
      else if (id === 'm2') channel.reject(msg, false);
      else if (!msg.fields.redelivered) channel.nack(msg, false, true);
      else {
        channel.ack(msg);
        resolve();
      }
    });
  });
  clearTimeout(timer);
  await channel.close();
} finally {
  await connection.close();
}
// Read before the shutdown: the in-memory exporter forgets its spans when it shuts down.
const bytes = JsonTraceSerializer.serializeRequest(exporter.getFinishedSpans());
await provider.shutdown();
process.stdout.write(`${Buffer.from(bytes ?? []).toString('utf8')}\n`);
