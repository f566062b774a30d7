/** Counts reduced updates and resolves a waiter when the count reaches its target (the connection and remote benches). */
export class Progress {
  count = 0;
  private target = Infinity;
  private done: () => void = () => {};
  reduced(): void {
    if (++this.count >= this.target) this.done();
  }
  until(target: number): Promise<void> {
    return new Promise((resolve) => {
      this.target = target;
      this.done = resolve;
      if (this.count >= target) resolve();
    });
  }
  reset(): void {
    this.count = 0;
  }
}
