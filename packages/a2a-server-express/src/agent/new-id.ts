/**
 * A fresh id (a random UUID) for the tasks, contexts, messages and configs the server makes.
 * Node's `randomUUID` builds its string from ~20 concatenated pieces, which V8 keeps as a tree of
 * cons strings (~490 bytes); `toLowerCase` (which leaves a UUID as it is) returns one flat string
 * (~60 bytes). A store of 10 000 tasks holds several such ids per task. No fallback: ids must stay
 * unguessable, and every supported runtime (Node >= 20) has `crypto.randomUUID`.
 */
export function newId(): string {
  return globalThis.crypto.randomUUID().toLowerCase();
}
