import { createParser, type EventSourceMessage } from 'eventsource-parser'

export interface SseHandlers {
  onEvent(event: EventSourceMessage): void
  onRetry?(ms: number): void
}

/**
 * Read a `text/event-stream` body to its end, handing each event over as it arrives (parsed by
 * eventsource-parser). Resolves when the server ends the stream; rejects when it breaks.
 */
export async function readSse(body: ReadableStream<Uint8Array>, handlers: SseHandlers): Promise<void> {
  const parser = createParser({ onEvent: (event) => handlers.onEvent(event), onRetry: (ms) => handlers.onRetry?.(ms) })
  const decoder = new TextDecoder()
  const reader = body.getReader()
  try {
    for (;;) {
      const { value, done } = await reader.read()
      if (done) break
      parser.feed(decoder.decode(value, { stream: true }))
    }
  } finally {
    reader.releaseLock()
  }
}
