// OpenTelemetry traces, off by default. With OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)
// set, startTracing() registers the SDK's Node tracer provider: W3C trace context (an incoming `traceparent` is
// continued), AsyncLocalStorage for the active span, and a batching OTLP/HTTP exporter that reads the standard
// OTEL_* variables itself (headers, timeouts, OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES, OTEL_TRACES_SAMPLER).
// Off, the SDK is never loaded and `inSpan` runs its work directly: no span objects, no context switches.
import { type Attributes, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';

const NAME = 'package-listing-gateway';
export const tracer = trace.getTracer(NAME);
let enabled = false;

/** Whether spans are recorded (startTracing found an endpoint). */
export const tracingOn = (): boolean => enabled;

export interface TracingSettings {
  /** OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT; tracing is off without one. */
  endpoint: string | undefined;
  serviceName: string;
}

/** The active span's trace and span ids, for log lines (none while tracing is off or outside a span). */
export function activeTraceIds(): { trace_id: string; span_id: string } | undefined {
  if (!enabled) return undefined;
  const span = trace.getActiveSpan();
  if (!span) return undefined;
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}

/** Starts exporting traces when an endpoint is set; resolves with the flush-and-stop to run at shutdown. */
export async function startTracing(settings: TracingSettings): Promise<(() => Promise<void>) | undefined> {
  if (!settings.endpoint || process.env.OTEL_SDK_DISABLED === 'true') return undefined;
  // Loaded only when on: the SDK and the exporter cost memory an untraced server has no use for.
  const [{ NodeTracerProvider }, { BatchSpanProcessor }, { OTLPTraceExporter }, { resourceFromAttributes }] =
    await Promise.all([
      import('@opentelemetry/sdk-trace-node'),
      import('@opentelemetry/sdk-trace-base'),
      import('@opentelemetry/exporter-trace-otlp-http'),
      import('@opentelemetry/resources'),
    ]);
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': settings.serviceName }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
  });
  provider.register();
  enabled = true;
  return async () => {
    enabled = false;
    await provider.shutdown();
  };
}

/**
 * Runs `work` in a span, a child of the active one and itself active while `work` runs; the span ends with
 * the outcome (an error marks it failed, with the error's name, never its message: it may quote input).
 */
export function inSpan<T>(
  name: string,
  options: { kind?: SpanKind; attributes?: Attributes },
  work: (span: Span | undefined) => Promise<T>,
): Promise<T> {
  if (!enabled) return work(undefined);
  return tracer.startActiveSpan(
    name,
    { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes },
    async (span) => {
      try {
        return await work(span);
      } catch (error) {
        span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error)?.name ?? 'Error' });
        throw error;
      } finally {
        span.end();
      }
    },
  );
}

export { SpanKind };
