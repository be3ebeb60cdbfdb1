import type { BudgetQueueDecision, BudgetTicket } from '@a2aplane/a2a-governance';

export class RedisTicket implements BudgetTicket {
  constructor(
    readonly id: number,
    readonly acquiredAt: number,
  ) {}
}

/** What one ACQUIRE script run decided: a ticket of this ledger, or the refusal it names. */
export type Decision = { ok: true; ticket: RedisTicket } | Extract<BudgetQueueDecision, { ok: false }>;
