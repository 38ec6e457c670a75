// OpenTelemetry traces, off by default. With OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)
// set, startTracing() registers the SDK's Node tracer provider: W3C trace context (an incoming `traceparent` is
// continued), AsyncLocalStorage for the active span, and a batching OTLP/HTTP exporter that reads the standard
// OTEL_* variables itself (headers, timeouts, OTEL_TRACES_SAMPLER, OTEL_BSP_*).
// Every span carries the resource (resourceOf), each layer over the one before: the SDK's defaults (telemetry.sdk.*);
// the host (host.name, host.arch, host.id) and the process (process.pid, runtime, executable; not its command line);
// the service (service.name from the configuration, service.version from package.json, and service.instance.id, a
// random UUID per process); then OTEL_RESOURCE_ATTRIBUTES and OTEL_SERVICE_NAME, which win over all of these.
// Off, the SDK is never loaded and `inSpan` runs its work directly: no span objects, no context switches.
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { type Attributes, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';

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

/** This build's version (package.json beside the compiled code), or none when it cannot be read. */
async function packageVersion(): Promise<string | undefined> {
  try {
    const { version } = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8'));
    return typeof version === 'string' ? version : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The resource every span is exported with. `a.merge(b)`: b's attributes win, so each layer overrides the ones
 * before it, and the environment's (OTEL_RESOURCE_ATTRIBUTES, OTEL_SERVICE_NAME) come last: an instance id or a
 * service name given there is kept. Settled here (host.id is read asynchronously), so no span waits for it.
 */
async function resourceOf(serviceName: string): Promise<Resource> {
  const { defaultResource, detectResources, envDetector, hostDetector, processDetector, resourceFromAttributes } =
    await import('@opentelemetry/resources');
  // The process detector without process.command_args: the server is started as `node dist/server.js` and takes no
  // arguments, but a command line is where a secret would be passed by mistake, and every span would carry it.
  const processIdentity = {
    detect: () => {
      const { attributes = {} } = processDetector.detect();
      return {
        attributes: Object.fromEntries(Object.entries(attributes).filter(([key]) => key !== 'process.command_args')),
      };
    },
  };
  const version = await packageVersion();
  const resource = defaultResource()
    .merge(detectResources({ detectors: [hostDetector, processIdentity] }))
    .merge(
      resourceFromAttributes({
        'service.name': serviceName,
        'service.instance.id': randomUUID(),
        ...(version && { 'service.version': version }),
      }),
    )
    .merge(detectResources({ detectors: [envDetector] }));
  await resource.waitForAsyncAttributes?.();
  return resource;
}

/** Starts exporting traces when an endpoint is set; resolves with the flush-and-stop to run at shutdown. */
export async function startTracing(settings: TracingSettings): Promise<(() => Promise<void>) | undefined> {
  if (!settings.endpoint || process.env.OTEL_SDK_DISABLED === 'true') return undefined;
  // Loaded only when on: the SDK and the exporter cost memory an untraced server has no use for.
  const [{ NodeTracerProvider }, { BatchSpanProcessor }, { OTLPTraceExporter }, resource] = await Promise.all([
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    resourceOf(settings.serviceName),
  ]);
  const provider = new NodeTracerProvider({
    resource,
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
