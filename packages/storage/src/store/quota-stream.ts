// The quota, held while bytes stream. The size of an upload is not known up front, so it reserves
// space in the catalog as its bytes arrive: this stage, between InspectStream and the blob
// driver, holds what has arrived, reserves exactly the bytes received so far, and only then
// passes them on. The catalog makes each grant atomic (catalog/reservations.ts), so uploads
// running side by side can never store more than the quota together; and since no upload holds
// space it has not received, uploads that fit together are never refused. Finalize replaces the
// reservation with the real size; deleting the pending row (failure, abort, or the sweep after a
// crash) gives it back.
//
// One round trip per BATCH_BYTES or more: while one is under way, bytes keep arriving (up to
// HOLD_BYTES) and the next covers them all, so the upload does not stall on the catalog.
//
// When uploads that run together outgrow the quota, each holds part of it and needs more: if all
// gave up, none would be stored although some would fit. So they go in the catalog's order (the
// same on every instance): a refused upload waits a little if it would fit behind the uploads
// before it, and gives up at once otherwise, freeing its space for them. The last in that order
// never fits behind all the others, so some upload always gives up: no two wait for each other.
import { Transform, type TransformCallback } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { FerryError, formatBytesExact } from '@ferry/contract';
import type { Catalog, Reservation } from '../catalog/types.js';

const BATCH_BYTES = 1024 * 1024;
const HOLD_BYTES = 2 * BATCH_BYTES;
/** How long a refused upload that fits behind the ones before it waits for space, each time. */
const MAX_WAIT_MS = 3000;
const MAX_PAUSE_MS = 200;

export interface QuotaStreamOptions {
  catalog: Catalog;
  owner: string;
  /** The pending row that holds the reservation. */
  pendingId: string;
  quotaBytes: number;
  /** Stops a wait when the upload is aborted. */
  signal?: AbortSignal | undefined;
}

export function createQuotaStream(options: QuotaStreamOptions): Transform {
  const { catalog, owner, pendingId, quotaBytes, signal } = options;
  return new QuotaStream(async (total) => {
    for (let waited = 0, pause = 5; ; pause = Math.min(MAX_PAUSE_MS, pause * 2)) {
      const result = await catalog.reserve(owner, pendingId, { bytes: total, quotaBytes });
      if (result.ok) return;
      const fitsBehind = result.storedBytes + result.reservedBefore + total <= quotaBytes;
      if (!fitsBehind || waited >= MAX_WAIT_MS) throw quotaExceeded(quotaBytes, total, result);
      await sleep(pause, undefined, signal ? { signal } : {});
      waited += pause;
    }
  });
}

/**
 * Passes bytes on only once `reserve(total)` has resolved for every byte up to them. Memory stays
 * under HOLD_BYTES held plus HOLD_BYTES passed on and not yet taken by the blob driver.
 */
class QuotaStream extends Transform {
  private held: Buffer[] = [];
  private heldBytes = 0;
  private received = 0;
  private reserving = false;
  /** The input's callback, kept while enough is held or waits for the blob driver. */
  private pendingInput: TransformCallback | undefined;
  private flushed: TransformCallback | undefined;
  /** false once push() asked to stop, until the blob driver reads again (_read). */
  private wanted = true;

  constructor(private readonly reserve: (total: number) => Promise<void>) {
    super({ readableHighWaterMark: HOLD_BYTES });
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.held.push(chunk);
    this.heldBytes += chunk.length;
    this.received += chunk.length;
    this.pendingInput = callback;
    this.reserveHeld();
    this.resumeInput();
  }

  override _flush(callback: TransformCallback): void {
    this.flushed = callback;
    this.reserveHeld();
  }

  override _read(size: number): void {
    this.wanted = true;
    this.resumeInput();
    // After resuming: Transform may park the input's callback for this very _read to release,
    // as _read is called before the bytes being read leave the buffer.
    super._read(size);
  }

  private resumeInput(): void {
    if (!this.pendingInput || !this.wanted || this.heldBytes >= HOLD_BYTES) return;
    const next = this.pendingInput;
    this.pendingInput = undefined;
    next();
  }

  /** Reserves everything held, once there is a batch of it or the input has ended. */
  private reserveHeld(): void {
    if (this.reserving || this.destroyed) return;
    if (this.heldBytes === 0) {
      const flushed = this.flushed;
      this.flushed = undefined;
      flushed?.();
      return;
    }
    if (this.heldBytes < BATCH_BYTES && !this.flushed) return;
    const count = this.held.length;
    this.reserving = true;
    this.reserve(this.received).then(
      () => {
        this.reserving = false;
        for (const chunk of this.held.splice(0, count)) {
          this.heldBytes -= chunk.length;
          if (!this.push(chunk)) this.wanted = false;
        }
        this.resumeInput();
        this.reserveHeld();
      },
      (error: unknown) => this.destroy(error instanceof Error ? error : new Error(String(error))),
    );
  }
}

function quotaExceeded(quotaBytes: number, total: number, refusal: Reservation & { ok: false }): FerryError {
  return new FerryError(
    'E_QUOTA_EXCEEDED',
    `Storage quota of ${formatBytesExact(quotaBytes)} exceeded: ${formatBytesExact(refusal.storedBytes)} used, ` +
      `${formatBytesExact(refusal.reservedByOthers)} reserved by other uploads in progress, ` +
      `and this one had reached ${formatBytesExact(total)} when refused`,
    {
      quota_bytes: quotaBytes,
      used_bytes: refusal.storedBytes,
      reserved_bytes: refusal.reservedByOthers,
      file_size_bytes: total,
    },
  );
}
