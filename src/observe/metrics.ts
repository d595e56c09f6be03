import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client'
import { defaults } from '../config/defaults.js'
import { TallyCounter, TallyHistogram } from './tally.js'

/** A gauge read at each scrape: `set` it once per label set (or once, without labels). */
export interface CollectedGauge<L extends string> {
  name: string
  help: string
  labelNames?: readonly L[]
  collect(set: (value: number, labels?: Partial<Record<L, string>>) => void): void | Promise<void>
}

/**
 * The Prometheus metrics of one server: a registry of its own (never prom-client's global one, so
 * several servers in one process never clash), the process metrics, and what the composition
 * registers. Made only when metrics are on: without it nothing is created and nothing counted.
 * Fed by the observer it was made for (createMetrics); read by `GET /metrics` on the
 * separate listener or on the main origin behind the admin scope.
 */
export class Metrics {
  readonly registry = new Registry()
  readonly #buckets: number[]

  constructor() {
    this.#buckets = [...defaults.observe.metrics.latencyBuckets]
    collectDefaultMetrics({ register: this.registry })
  }

  counter<L extends string>(name: string, help: string, labelNames: readonly L[]): Counter<L> {
    return new Counter({ name, help, labelNames, registers: [this.registry] })
  }

  /** A latency histogram (seconds) with the buckets of `defaults.observe.metrics.latencyBuckets`. */
  histogram<L extends string>(name: string, help: string, labelNames: readonly L[]): Histogram<L> {
    return new Histogram({ name, help, labelNames, buckets: this.#buckets, registers: [this.registry] })
  }

  /** A counter for the request path: its series are cells the caller keeps (see TallyCounter). */
  tallyCounter(name: string, help: string): TallyCounter {
    return new TallyCounter(this.registry, name, help)
  }

  /** A latency histogram (seconds) for the request path, with the buckets of `latencyBuckets` (see TallyHistogram). */
  tallyHistogram(name: string, help: string): TallyHistogram {
    return new TallyHistogram(this.registry, name, help, this.#buckets)
  }

  /** A gauge whose value is asked for at each scrape (open sessions, children running, Redis up). */
  addGauge<L extends string>(gauge: CollectedGauge<L>): void {
    new Gauge<L>({
      name: gauge.name,
      help: gauge.help,
      labelNames: gauge.labelNames ?? [],
      registers: [this.registry],
      async collect() {
        this.reset()
        await gauge.collect((value, labels) => (labels === undefined ? this.set(value) : this.set(labels, value)))
      },
    })
  }

  /** The Prometheus text exposition of every metric, and its content type. */
  async scrape(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() }
  }
}
