import { spawn, type ChildProcess } from 'node:child_process'
import { PassThrough, type Readable } from 'node:stream'
import { defaults } from '../../config/defaults.js'
import { decodeJson, type JsonRpcPayload } from '../../jsonrpc/index.js'
import type { MessageExtra, Transport } from '../../protocol/transport.js'
import { childEnvironment } from './child-environment.js'
import { LineWriter } from './line-writer.js'
import { ReadBuffer } from './read-buffer.js'
import { StdioError } from './stdio-error.js'
import { waitFor } from './wait-for.js'

export interface StdioClientTransportOptions {
  /** The server executable; looked up on the child's PATH, never run through a shell. */
  command: string
  args?: readonly string[]
  /** Variables the server gets on top of the allow-listed ones (`inheritedEnv`). */
  env?: Readonly<Record<string, string>>
  cwd?: string
  /** The child's stderr: shown as ours (default), exposed as `transport.stderr`, or dropped. */
  stderr?: 'inherit' | 'pipe' | 'ignore'
  /** Variables copied from our environment. Default `defaults.stdio.inheritedEnv`. */
  inheritedEnv?: readonly string[]
  /** Wait after closing the child's stdin before SIGTERM. Default `defaults.stdio.closeGraceMs`. */
  closeGraceMs?: number
  /** Wait after SIGTERM before SIGKILL. Default `defaults.stdio.killGraceMs`. */
  killGraceMs?: number
  /** Longest line accepted from the server. Default `defaults.stdio.maxLineBytes`. */
  maxLineBytes?: number
  /**
   * Send the messages of one turn of the event loop to the server in one write (see LineWriter):
   * fewer system calls when many requests go to one server at once (the gateway). Default off.
   */
  coalesceWrites?: boolean
}

/** How the child ended: an exit code, or the signal that killed it. */
export interface ChildExitStatus {
  code: number | null
  signal: NodeJS.Signals | null
}

/**
 * The client side of the stdio transport: spawns the MCP server and speaks newline-delimited
 * JSON-RPC over its stdin/stdout. The child gets a minimal environment (see `childEnvironment`).
 * close() ends the child's stdin, then escalates to SIGTERM and SIGKILL after the grace periods,
 * and resolves once the child has exited; onclose fires once, also when the child exits by itself.
 *
 * @example
 * const transport = new StdioClientTransport({ command: 'node', args: ['server.js'], stderr: 'pipe' })
 * transport.stderr?.on('data', (chunk) => log(String(chunk)))
 * await client.connect(transport)
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#stdio
 */
export class StdioClientTransport implements Transport {
  readonly #options: StdioClientTransportOptions
  readonly #stderr: PassThrough | undefined
  readonly #buffer: ReadBuffer
  #child: ChildProcess | undefined
  #starting: Promise<void> | undefined
  #writer: LineWriter | undefined
  #exitStatus: ChildExitStatus | undefined
  #exited: Promise<void> | undefined
  #closing: Promise<void> | undefined
  #finished: Promise<void> | undefined
  #closed = false

  onmessage?: (payload: unknown, extra?: MessageExtra) => void
  onerror?: (error: Error) => void
  onclose?: () => void

  constructor(options: StdioClientTransportOptions) {
    this.#options = options
    this.#buffer = new ReadBuffer(options.maxLineBytes)
    // created up front so callers can listen before start()
    if (options.stderr === 'pipe') this.#stderr = new PassThrough()
  }

  /** The server's process id, once spawned. */
  get pid(): number | undefined {
    return this.#child?.pid
  }

  /**
   * The server's stderr when `stderr: 'pipe'` was chosen, else null. Available before start();
   * read it, or a chatty server blocks once the pipe's buffer is full.
   */
  get stderr(): Readable | null {
    return this.#stderr ?? null
  }

  /** How the server ended, once it has. */
  get exitStatus(): ChildExitStatus | undefined {
    return this.#exitStatus
  }

  start(): Promise<void> {
    if (this.#child !== undefined) return Promise.reject(new StdioError('invalid_state', 'this stdio transport is already started'))
    const { command, args = [], cwd, stderr = 'inherit' } = this.#options
    this.#starting = new Promise<void>((resolve, reject) => {
      const fail = (cause: unknown) => {
        this.#closed = true
        this.#stderr?.end()
        const where = cwd === undefined ? '' : ` in ${cwd}`
        const reason = cause instanceof Error ? cause.message : String(cause)
        reject(new StdioError('spawn_failed', `could not start the MCP server '${command}'${where}: ${reason}`, { cause }))
      }
      let child: ChildProcess
      try {
        child = spawn(command, [...args], {
          cwd,
          env: childEnvironment(this.#options.env, this.#options.inheritedEnv),
          stdio: ['pipe', 'pipe', stderr],
          shell: false,
          windowsHide: true,
        })
      } catch (error) {
        fail(error)
        return
      }
      this.#child = child
      child.once('error', fail)
      child.once('spawn', () => {
        child.off('error', fail)
        this.#attach(child)
        resolve()
      })
    })
    return this.#starting
  }

  async send(payload: JsonRpcPayload): Promise<void> {
    if (this.#writer === undefined || this.#closing !== undefined || this.#exitStatus !== undefined) {
      throw new StdioError('not_connected', 'cannot send: the MCP server process is not running')
    }
    await this.#writer.write(payload)
  }

  /** Stop the server: end its stdin, then SIGTERM, then SIGKILL, each after its grace period. */
  close(): Promise<void> {
    this.#closing ??= this.#shutDown()
    return this.#closing
  }

  async #shutDown(): Promise<void> {
    // a close() racing start() must not leave the child running once it has spawned
    await this.#starting?.catch(() => {})
    const child = this.#child
    if (child === undefined || this.#exited === undefined || this.#finished === undefined) {
      this.#finish()
      return
    }
    if (this.#exitStatus === undefined) {
      const { closeGraceMs = defaults.stdio.closeGraceMs, killGraceMs = defaults.stdio.killGraceMs } = this.#options
      child.stdin?.end()
      if (!(await waitFor(this.#exited, closeGraceMs))) {
        child.kill('SIGTERM')
        if (!(await waitFor(this.#exited, killGraceMs))) {
          child.kill('SIGKILL')
          await this.#exited
        }
      }
    }
    await this.#finished
  }

  #attach(child: ChildProcess): void {
    const { stdin, stdout } = child as ChildProcess & { stdin: NonNullable<ChildProcess['stdin']>; stdout: NonNullable<ChildProcess['stdout']> }
    this.#writer = new LineWriter(stdin, { coalesce: this.#options.coalesceWrites === true })
    const report = (error: Error) => {
      // a pipe breaking while we stop the child is expected
      if (this.#closing === undefined && this.#exitStatus === undefined) this.onerror?.(error)
    }
    child.on('error', report)
    stdin.on('error', report)
    stdout.on('error', report)
    stdout.on('data', (chunk: Buffer) => this.#onData(chunk))
    if (this.#stderr !== undefined && child.stderr !== null) child.stderr.pipe(this.#stderr)

    const pipesClosed = new Promise<void>((resolve) => child.once('close', () => resolve()))
    this.#exited = new Promise<void>((resolve) => {
      child.once('exit', (code, signal) => {
        this.#exitStatus = { code, signal }
        resolve()
      })
    })
    this.#finished = this.#exited.then(async () => {
      // what the child wrote before exiting is still in the pipes; a grandchild holding them open
      // must not keep us waiting forever
      if (!(await waitFor(pipesClosed, this.#options.closeGraceMs ?? defaults.stdio.closeGraceMs))) {
        stdin.destroy()
        stdout.destroy()
        child.stderr?.destroy()
        this.#stderr?.end()
      }
      this.#finish()
    })
  }

  #onData(chunk: Buffer): void {
    for (const item of this.#buffer.append(chunk)) {
      if ('error' in item) {
        this.onerror?.(item.error)
        continue
      }
      let value: unknown
      try {
        value = decodeJson(item.line)
      } catch (error) {
        this.onerror?.(error as Error)
        continue
      }
      try {
        this.onmessage?.(value)
      } catch (error) {
        this.onerror?.(error instanceof Error ? error : new Error(String(error)))
      }
    }
  }

  #finish(): void {
    if (this.#closed) return
    this.#closed = true
    this.#buffer.clear()
    this.onclose?.()
  }
}
