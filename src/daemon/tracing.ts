import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import { VERSION } from '../lib/version.js';

/** Tracing, once started: stop it to export the spans still waiting. */
export interface Tracing {
  shutdown(): Promise<void>;
}

/**
 * Registers the OpenTelemetry SDK for this process: spans in batches to OTLP over HTTP (JSON), at
 * OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (default localhost:4318);
 * OTEL_TRACES_SAMPLER and OTEL_BSP_* read by the SDK; W3C trace context propagated; the context of
 * asynchronous work carried by AsyncLocalStorage. Loaded only when tracing is on (`--trace`), so a
 * process without it loads none of the SDK.
 */
export function startTracing(serviceName: string): Tracing {
  // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win over our own name.
  const resource = defaultResource()
    .merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: serviceName, [ATTR_SERVICE_VERSION]: VERSION }))
    .merge(detectResources({ detectors: [envDetector] }));
  const provider = new NodeTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())] });
  provider.register({ propagator: new W3CTraceContextPropagator() });
  return { shutdown: () => provider.shutdown() };
}
