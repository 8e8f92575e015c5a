/**
 * Documented services: the cloud queues that cannot run beside jobcheck, each mode of each stated
 * as the model with the variants (variants.ts) its vendor's documentation calls for. A mode's model
 * is the contract where its documentation says nothing else; it is what the service documents, not
 * what it was seen to do. Each variant of a mode carries a citation checked against the vendor's
 * page (docs/profiles/documented/citations.json); the pages and the lab step these models.
 *
 * Invariants: a mode names each variant once, no two of its variants replace the same rule, and a
 * mode's id is unique across services. Pure data and pure functions: the lab's browser bundle
 * imports this file.
 */
import { composeVariants, modelVariant } from './variants.ts';
import type { ModelVariant, VariantName } from './variants.ts';
import type { Model } from './stepTypes.ts';

/** One mode of a documented service: how it is configured, and the variants its documentation calls for. */
export interface DocumentedMode {
  /** Unique across services, e.g. `servicebus-receive-and-delete`. */
  readonly id: string;
  /** The mode as the vendor names it, e.g. `Receive-and-Delete`. */
  readonly name: string;
  /** How the mode is chosen, in one sentence. */
  readonly setting: string;
  readonly variants: readonly VariantName[];
}

/** A service that cannot run here, profiled from its documentation only. */
export interface DocumentedService {
  /** The page's slug, e.g. `azure-service-bus`. */
  readonly id: string;
  readonly name: string;
  readonly modes: readonly DocumentedMode[];
}

/** SQS FIFO's deduplication interval, in minutes: the documented mode reads a tick as one minute. */
export const SQS_WINDOW_MINUTES = 5;

/** Every documented service, in the order of their pages. */
export const DOCUMENTED_SERVICES: readonly DocumentedService[] = [
  {
    id: 'amazon-sqs',
    name: 'Amazon SQS',
    modes: [
      {
        id: 'sqs-standard',
        name: 'standard queue',
        setting: 'a queue created without `FifoQueue`',
        variants: ['no-account-order', 'duplicate-within-visibility'],
      },
      {
        id: 'sqs-fifo',
        name: 'FIFO queue',
        setting:
          'a queue created with `FifoQueue`, each account its own `MessageGroupId`, each job id its `MessageDeduplicationId`; a tick read as one minute',
        variants: [`deduplication-window:${SQS_WINDOW_MINUTES}`],
      },
    ],
  },
  {
    id: 'google-pub-sub',
    name: 'Google Pub/Sub',
    modes: [
      {
        id: 'pubsub-at-least-once',
        name: 'pull subscription, exactly-once delivery off',
        setting: 'a pull subscription without `enableExactlyOnceDelivery` or message ordering; a failure is a nack',
        variants: ['no-account-order', 'no-backoff', 'duplicate-within-visibility'],
      },
      {
        id: 'pubsub-exactly-once',
        name: 'pull subscription, exactly-once delivery on',
        setting: 'a pull subscription with `enableExactlyOnceDelivery`, without message ordering; a failure is a nack',
        variants: ['no-account-order', 'no-backoff'],
      },
    ],
  },
  {
    id: 'azure-service-bus',
    name: 'Azure Service Bus',
    modes: [
      {
        id: 'servicebus-peek-lock',
        name: 'Peek-Lock',
        setting: 'a receiver in `PeekLock` mode; a failure is an abandon',
        variants: ['no-backoff'],
      },
      {
        id: 'servicebus-receive-and-delete',
        name: 'Receive-and-Delete',
        setting: 'a receiver in `ReceiveAndDelete` mode',
        variants: ['delete-on-receive'],
      },
    ],
  },
];

/** Every documented mode, service by service. */
export const DOCUMENTED_MODES: readonly DocumentedMode[] = DOCUMENTED_SERVICES.flatMap((s) => s.modes);

/** The mode with this id, or undefined (ids come from outside: pages, stories). Pure. */
export function documentedMode(id: string): DocumentedMode | undefined {
  return DOCUMENTED_MODES.find((m) => m.id === id);
}

/** The variants of a mode, as model variants. Pure. */
export function modeVariants(mode: DocumentedMode): readonly ModelVariant[] {
  return mode.variants.map((name) => {
    const v = modelVariant(name);
    if (v === undefined) throw new RangeError(`documented mode ${mode.id}: no model variant ${name}`);
    return v;
  });
}

const models = new Map<string, Model>();

/** The model of a documented mode: the contract with the mode's variants in place (built once). Pure. */
export function documentedModel(id: string): Model | undefined {
  const mode = documentedMode(id);
  if (mode === undefined) return undefined;
  let model = models.get(id);
  if (model === undefined) {
    model = composeVariants(modeVariants(mode)).model;
    models.set(id, model);
  }
  return model;
}
