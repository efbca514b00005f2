/**
 * Phones by id (1 and up; 0 is "none"), each with the count of ring entries holding it: an id
 * none holds is freed and reused, so the table never outgrows twice the ring's capacity however
 * many distinct recipients a soak test sends to.
 */
export class PhoneTable {
  #names: (string | undefined)[] = [undefined];
  #refs: number[] = [0];
  #ids = new Map<string, number>();
  #free: number[] = [];

  /** The id of `phone`, held once more. */
  take(phone: string): number {
    let id = this.#ids.get(phone);
    if (id === undefined) {
      id = this.#free.pop() ?? this.#names.length;
      this.#names[id] = phone;
      this.#refs[id] = 0;
      this.#ids.set(phone, id);
    }
    this.#refs[id] = (this.#refs[id] as number) + 1;
    return id;
  }

  /** Holds `id` once less (0: nothing); frees it when nothing holds it. */
  release(id: number): void {
    if (id === 0) return;
    const refs = (this.#refs[id] as number) - 1;
    this.#refs[id] = refs;
    if (refs > 0) return;
    this.#ids.delete(this.#names[id] as string);
    this.#names[id] = undefined;
    this.#free.push(id);
  }

  /** The id of `phone`, if an entry holds it. */
  find(phone: string): number | undefined {
    return this.#ids.get(phone);
  }

  /** The phone of `id` (undefined for 0). */
  name(id: number): string | undefined {
    return this.#names[id];
  }
}
