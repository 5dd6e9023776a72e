/**
 * Items waiting in named queues, in order within each; `take` serves the queue served least recently (one never
 * served first, ties in the order the queues appeared), so a queue that just had its turn waits behind every other
 * even when it emptied and filled again in between.
 */
export interface FairQueue<T> {
  add(queue: string, item: T): void;
  /** The oldest item of the next queue in turn; undefined when nothing waits. */
  take(): T | undefined;
  /** Removes a waiting item; false when it was not waiting. */
  remove(queue: string, item: T): boolean;
  /** Every waiting item (each queue's in order), leaving none. */
  drain(): T[];
  size(): number;
}

export function createFairQueue<T>(): FairQueue<T> {
  const queues = new Map<string, T[]>();
  // One entry per queue name ever served (the server's are partners: a bounded set).
  const lastServed = new Map<string, number>();
  let turn = 0;
  let count = 0;
  return {
    add(queue, item) {
      const items = queues.get(queue);
      if (items === undefined) queues.set(queue, [item]);
      else items.push(item);
      count++;
    },
    take() {
      let next: string | undefined;
      for (const queue of queues.keys()) {
        if (next === undefined || (lastServed.get(queue) ?? -1) < (lastServed.get(next) ?? -1)) next = queue;
      }
      if (next === undefined) return undefined;
      const items = queues.get(next) as T[];
      const item = items.shift() as T;
      if (items.length === 0) queues.delete(next);
      lastServed.set(next, ++turn);
      count--;
      return item;
    },
    remove(queue, item) {
      const items = queues.get(queue);
      const at = items?.indexOf(item) ?? -1;
      if (items === undefined || at < 0) return false;
      items.splice(at, 1);
      if (items.length === 0) queues.delete(queue);
      count--;
      return true;
    },
    drain() {
      const all = [...queues.values()].flat();
      queues.clear();
      count = 0;
      return all;
    },
    size: () => count,
  };
}
