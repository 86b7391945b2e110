/**
 * One process's resource handles: the numbers a guest holds for host
 * objects (streams, pollables, sockets, requests). One table for every
 * resource type; 0 is never a handle; freed numbers are used again.
 *
 * @module
 */

/** The handle table of one process. */
export class Handles {
  private objects: (object | undefined)[] = [undefined];
  private free: number[] = [];

  /** A new handle for `obj` (an `own` the host hands out). */
  add(obj: object): number {
    const h = this.free.pop() ?? this.objects.length;
    this.objects[h] = obj;
    return h;
  }

  /** The object of a handle the guest lends (`borrow`). */
  get(h: number): object {
    const obj = this.objects[h];
    if (obj === undefined) throw new TypeError(`invalid resource handle ${h}`);
    return obj;
  }

  /** Takes the object of a handle the guest gives up (`own`, a drop). */
  take(h: number): object {
    const obj = this.get(h);
    this.objects[h] = undefined;
    this.free.push(h);
    return obj;
  }
}
