import { metricsOf } from '../observe/create-metrics.js'
import type { Observer } from '../observe/observer.js'

/** The gauge of the gateway's children running in this process, when the observer has metrics (started and crashed are counted from their audit events). */
export function observeGatewayChildren(observer: Observer, running: () => number): void {
  metricsOf(observer)?.addGauge({ name: 'mcp_auth_gateway_children_running', help: 'Gateway child processes running in this process.', collect: (set) => set(running()) })
}
