/**
 * At most `n` of the functions handed to the returned limiter run at once; the others wait their turn, first come
 * first served. Tests that each start a harness run use it so that their waits overlap while the machine's two cores
 * are not oversubscribed (the kill matrix, the hostile zoo).
 */
export function limiter(n: number): <T>(work: () => Promise<T>) => Promise<T> {
  let running = 0;
  const queue: Array<() => void> = [];
  return async <T>(work: () => Promise<T>): Promise<T> => {
    // A freed slot passes straight to the next waiter (the count stays), so no newcomer can overtake it.
    if (running >= n) await new Promise<void>((resolve) => queue.push(resolve));
    else running++;
    try {
      return await work();
    } finally {
      if (queue.length > 0) queue.shift()!();
      else running--;
    }
  };
}
