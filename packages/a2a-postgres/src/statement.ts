import { createHash } from 'node:crypto';

/** A statement prepared once per connection: node-postgres parses a named statement on first use only. */
export interface Statement {
  name: string;
  text: string;
}

/** Names a statement after its text, so two texts never share a name (and one text always has the same). */
export function statement(text: string): Statement {
  return { name: `a2a_${createHash('sha256').update(text).digest('hex').slice(0, 40)}`, text };
}

/** Numbered parameters by name: `p('tenant')` is `$1` the first time and every time after. */
export function parameters(): { p: (name: string) => string; order: string[] } {
  const order: string[] = [];
  return {
    order,
    p(name: string) {
      let index = order.indexOf(name);
      if (index === -1) index = order.push(name) - 1;
      return `$${index + 1}`;
    },
  };
}

/** The values of a statement's parameters in its order. */
export function bind(order: readonly string[], values: Record<string, unknown>): unknown[] {
  return order.map((name) => {
    if (!(name in values)) throw new Error(`no value for parameter ${name}`);
    return values[name];
  });
}
