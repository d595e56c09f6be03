import { context, ProxyTracerProvider, type Span, SpanKind, SpanStatusCode, trace, type Tracer } from '@opentelemetry/api'
import { defaults } from '../config/defaults.js'

/** What the API's global provider delegates to while no SDK registered one. */
const NO_PROVIDER = new ProxyTracerProvider().getDelegate()
let tracer: Tracer | undefined

/**
 * Whether an OpenTelemetry SDK registered a tracer provider (`trace.setGlobalTracerProvider`, or
 * an SDK's `register()`). Asked on each request: until one is, no span, context or attribute is
 * made anywhere (a global lookup and a comparison, a few nanoseconds).
 * @see https://opentelemetry.io/docs/specs/otel/trace/api/#tracerprovider
 */
export function tracingOn(): boolean {
  const provider = trace.getTracerProvider()
  return (provider instanceof ProxyTracerProvider ? provider.getDelegate() : provider) !== NO_PROVIDER
}

/** Our tracer (`defaults.observe.tracing.tracerName`), through the API's proxy: it follows whichever SDK is registered. */
export function ourTracer(): Tracer {
  tracer ??= trace.getTracer(defaults.observe.tracing.tracerName)
  return tracer
}

/** Ends `span`, marked as failed when `error` is given: its JSON-RPC or OAuth code (else its class) as `error.type`, never its message (it may quote input). */
export function endSpan(span: Span, error?: unknown): void {
  if (error !== undefined) {
    span.setStatus({ code: SpanStatusCode.ERROR })
    const code = (error as { code?: unknown; error?: unknown }).code ?? (error as { error?: unknown }).error
    span.setAttribute('error.type', typeof code === 'string' || typeof code === 'number' ? String(code) : error instanceof Error ? error.name : 'error')
  }
  span.end()
}

/**
 * Runs one MCP request's handler inside a span (`tools/call echo`, `resources/read`), a child of
 * whatever span is active (the HTTP request's). With no SDK registered it only calls `run`.
 * Attributes follow the OpenTelemetry MCP conventions: `mcp.method.name`, `gen_ai.tool.name` or
 * `gen_ai.prompt.name`; never the arguments or the result.
 * @see https://opentelemetry.io/docs/specs/semconv/gen-ai/mcp/
 */
export function traceMcpRequest<T>(method: string, params: Readonly<Record<string, unknown>>, run: () => T): T {
  if (!tracingOn()) return run()
  // the name as the client sent it (an unknown tool's too): a span name, never a metric label; a long one is left out
  const given = method === 'tools/call' || method === 'prompts/get' ? params['name'] : undefined
  const name = typeof given === 'string' && given.length <= defaults.observe.tracing.maxNameLength ? given : undefined
  const span = ourTracer().startSpan(name === undefined ? method : `${method} ${name}`, {
    kind: SpanKind.SERVER,
    attributes: {
      'mcp.method.name': method,
      ...(name !== undefined ? { [method === 'tools/call' ? 'gen_ai.tool.name' : 'gen_ai.prompt.name']: name } : {}),
    },
  })
  let result: T
  try {
    result = context.with(trace.setSpan(context.active(), span), run)
  } catch (error) {
    endSpan(span, error)
    throw error
  }
  if (result instanceof Promise) {
    return result.then(
      (value: unknown) => {
        endSpan(span)
        return value
      },
      (error: unknown) => {
        endSpan(span, error)
        throw error
      },
    ) as T
  }
  endSpan(span)
  return result
}
