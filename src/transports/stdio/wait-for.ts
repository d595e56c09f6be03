/** Whether `promise` settles within `ms`; the timer is cleared either way, so nothing lingers. */
export async function waitFor(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined
  const timedOut = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms)
  })
  try {
    return await Promise.race([promise.then(() => true as const), timedOut])
  } finally {
    clearTimeout(timer)
  }
}
