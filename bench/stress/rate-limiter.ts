// An even-paced rate limit shared by all threads (-rate limit=N/s or fixed=N/s): each acquire()
// takes the next slot on a 1/N s grid and resolves at that time. With fixed=, callers measure
// latency from the slot (the intended start), so a stalled server is not hidden (coordinated omission).

export class RateLimiter {
  private readonly intervalMs: number;
  private nextSlot: number;

  constructor(opsPerSecond: number, now: number = performance.now()) {
    this.intervalMs = 1000 / opsPerSecond;
    this.nextSlot = now;
  }

  /** Waits for this caller's slot; returns the slot's time (performance.now() scale). */
  async acquire(): Promise<number> {
    const now = performance.now();
    // After an idle stretch do not burst to catch up by more than one second's worth.
    if (this.nextSlot < now - 1000) this.nextSlot = now - 1000;
    const slot = this.nextSlot;
    this.nextSlot += this.intervalMs;
    const wait = slot - now;
    if (wait > 1) await new Promise((ok) => setTimeout(ok, wait));
    return slot;
  }
}
