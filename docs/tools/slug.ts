/**
 * The one slug the generated pages use for a file name or an anchor: lower case, each run of other
 * characters one hyphen, none at either end (`BullMQ (PostgreSQL backend)` → `bullmq-postgresql-backend`).
 */

/** The slug of `text`. Pure. */
export const slug = (text: string): string =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
