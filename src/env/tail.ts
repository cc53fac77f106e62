// The tail of a stream of text, capped while it is produced: a flood of output costs memory
// proportional to the cap, not to what was printed.

/** Keeps the last `cap` characters of everything added. */
export class TailBuffer {
  private parts: string[] = [];
  private size = 0;
  private total = 0;

  constructor(public cap: number) {}

  add(text: string): void {
    this.total += text.length;
    if (text.length >= this.cap) {
      this.parts = [text.slice(text.length - this.cap)];
      this.size = this.parts[0]!.length;
      return;
    }
    this.parts.push(text);
    this.size += text.length;
    if (this.size > 2 * this.cap) {
      const kept = this.parts.join('').slice(-this.cap);
      this.parts = [kept];
      this.size = kept.length;
    }
  }

  /** The last `cap` characters. */
  text(): string {
    const joined = this.parts.join('');
    return this.cap > 0 ? joined.slice(-this.cap) : '';
  }

  /** More was added than `text()` returns. */
  truncated(): boolean {
    return this.total > Math.min(this.size, this.cap);
  }

  clear(): void {
    this.parts = [];
    this.size = 0;
    this.total = 0;
  }
}
