import { nodeSupportNotice } from '../../src/cli/node-support-notice.js'

// Once per test run (vitest.config.ts globalSetup), not once per test process: on Node 20 the run
// says, in one line, that the line is past its end of life and which lines are supported.
export default function nodeSupportGlobalSetup(): void {
  const notice = nodeSupportNotice()
  if (notice !== undefined) process.stderr.write(`${notice}\n`)
}
