// An array whose JSON elements are made as they are written (json-stream.ts streams them
// one at a time); anywhere else, JSON.stringify sees the whole array through toJSON.

export class JsonList<T> {
  constructor(
    readonly items: readonly T[],
    readonly json: (item: T) => unknown,
  ) {}

  toJSON(): unknown[] {
    return this.items.map(this.json);
  }
}
