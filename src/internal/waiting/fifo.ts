/** The links a `Fifo` keeps on each of its nodes (the node is the waiter itself: no wrapper). */
export interface FifoNode<T> {
  prev: T | undefined;
  next: T | undefined;
}

/**
 * A first-in-first-out queue of nodes that carry their own links: O(1) to add at the end and to
 * take out anywhere, which a waiter that gives up (its signal, its deadline) needs. Used by the
 * rate gate and the connection gate.
 *
 * @example
 * const waiters = new Fifo<Waiter>()
 * waiters.push(waiter); waiters.remove(waiters.head as Waiter)
 */
export class Fifo<T extends FifoNode<T>> {
  #head: T | undefined;
  #tail: T | undefined;
  #size = 0;

  /** The oldest node, or undefined when the queue is empty. */
  get head(): T | undefined {
    return this.#head;
  }

  /** How many nodes are queued. */
  get size(): number {
    return this.#size;
  }

  /** Adds `node` at the end. It must not be queued already. */
  push(node: T): void {
    node.prev = this.#tail;
    node.next = undefined;
    if (this.#tail) this.#tail.next = node;
    else this.#head = node;
    this.#tail = node;
    this.#size++;
  }

  /** Takes `node` out, wherever it is. It must be queued. */
  remove(node: T): void {
    if (node.prev) node.prev.next = node.next;
    else this.#head = node.next;
    if (node.next) node.next.prev = node.prev;
    else this.#tail = node.prev;
    node.prev = undefined;
    node.next = undefined;
    this.#size--;
  }
}
