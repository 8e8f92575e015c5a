/**
 * What every adapter answers the same way, on impl/decisions: the effect ledger a worker keeps (the
 * contract's commit plan, reply and texts) and the `stale_token` reply (impl's text, then what the
 * queue answered). No queue keeps an effect ledger: where it offers no store for a worker's
 * writes (RabbitMQ, NATS JetStream, beanstalkd) the worker keeps it in memory (`WorkerLedger`);
 * beside pg-boss's and BullMQ's tables and keys it stays in the adapter's own rows, which run
 * `commitPlan` and `commitReply` on what they read. Only the storage is each adapter's.
 */
import type { CommitResult, EffectRecord, Rejection, Snapshot } from '../contract/index.ts';
import type { PlannedEffect } from '../impl/decisions/index.ts';
import { commitPlan, commitReply, staleToken as implStaleToken } from '../impl/decisions/index.ts';
import { ledgerOf } from '../impl/durable/index.ts';

/**
 * The `stale_token` rejection of `token`, impl's text, followed by `answer` when there is one:
 * what the queue answered when asked (its refusal), or why nothing was asked. Pure.
 */
export function staleToken(token: number, answer?: string): Rejection {
  const rejection = implStaleToken(token);
  return answer === undefined ? rejection : { ...rejection, message: `${rejection.message}: ${answer}` };
}

/** The effect ledger and balances a worker keeps in its own memory, keyed (account, key). */
export class WorkerLedger {
  private readonly effects = new Map<string, Map<string, EffectRecord>>();
  private readonly balances = new Map<string, number>();

  /** Commits `effect` for job `id`, delivered under `token`: the contract's plan, written here when it applies. */
  commit(id: string, token: number, effect: PlannedEffect): CommitResult | Rejection {
    const { account, key, amount } = effect;
    const plan = commitPlan(effect, this.effects.get(account)?.get(key)?.amount, this.balances.get(account) ?? 0);
    if (plan.type === 'apply') {
      const ledger = this.effects.get(account) ?? new Map<string, EffectRecord>();
      ledger.set(key, { amount, job: id, token });
      this.effects.set(account, ledger);
      this.balances.set(account, plan.balance);
    }
    return commitReply(id, plan);
  }

  /** The ledger's part of the canonical snapshot (copies). Pure. */
  snapshot(): Pick<Snapshot, 'balances' | 'effects'> {
    return ledgerOf(
      [...this.balances].map(([account, balance]) => ({ account, balance })),
      [...this.effects].flatMap(([account, held]) =>
        [...held].map(([key, effect]) => ({ account, key, effect: { ...effect } })),
      ),
    );
  }
}
