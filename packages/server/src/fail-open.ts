/**
 * Runs `operation` under a short deadline. A quota is cost protection, not an authorization
 * boundary (seed 000 §5): when its store is away, slow or refusing, the request goes on. So
 * a rejection or a missed deadline is reported (`onFailOpen`) and answered with `undefined`,
 * and the caller allows. The operation itself is not cancelled (ioredis cannot cancel a sent
 * command); its late result is ignored.
 */
export async function failOpen<T>(
  operation: () => Promise<T>,
  deadlineMs: number,
  onFailOpen: (reason: string) => void,
): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<'deadline'>((resolve) => {
    timer = setTimeout(() => resolve('deadline'), deadlineMs);
  });
  try {
    const outcome = await Promise.race([operation().then((value) => ({ value })), deadline]);
    if (outcome === 'deadline') {
      onFailOpen(`no answer within ${deadlineMs} ms`);
      return undefined;
    }
    return outcome.value;
  } catch (thrown) {
    onFailOpen(thrown instanceof Error ? thrown.message : String(thrown));
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}
