// A streaming read by WebAssembly SIMD loads: the kernel behind the memory-bandwidth figures, the
// bench's (bench/bandwidth.ts: 256 MB, one or several threads over one shared memory) and the
// page's speed probe (service/speed_probe.ts: 64 MiB, one thread). Read only, as decoding's weights
// are only read.
import { Body, I32, moduleBytes, V128 } from '../wasm/assembler.ts';

/**
 * `read(ptr, bytes)`: xors every 16 bytes of [ptr, ptr + bytes) into 4 accumulators, 64 bytes a
 * step, and stores the result at 0, so no load can be skipped. Xor rather than a float add: one
 * cycle of latency, so the loop waits on memory, never on its own arithmetic (in cache, a float add
 * chain measured ~10% slower). `shared`: for a shared memory (threads).
 */
export function streamReadModule(shared = false): Uint8Array<ArrayBuffer> {
  const f = new Body(2);
  const [ptr, bytes] = [0, 1];
  const end = f.local(I32);
  const acc = Array.from({ length: 4 }, () => f.local(V128));
  f.get(ptr).get(bytes).i32Add().set(end);
  f.whileLoop(f.fits(ptr, 64, end), () => {
    acc.forEach((a, i) =>
      f
        .get(ptr)
        .v128Load(i * 16)
        .get(a)
        .v128Xor()
        .set(a),
    );
    f.addConst(ptr, 64);
  });
  for (let i = 1; i < 4; i++) f.get(acc[0]!).get(acc[i]!).v128Xor().set(acc[0]!);
  f.i32(0).get(acc[0]!).v128Store(0, 4); // the result is used: no load can be skipped
  return moduleBytes([{ name: 'read', params: 2, body: f }], shared);
}

/** `read(ptr, bytes)` above on `memory` (shared or not). */
export function instantiateStreamRead(
  memory: WebAssembly.Memory,
): (ptr: number, bytes: number) => void {
  const shared =
    typeof SharedArrayBuffer !== 'undefined' && memory.buffer instanceof SharedArrayBuffer;
  const module = new WebAssembly.Module(streamReadModule(shared));
  return new WebAssembly.Instance(module, { env: { memory } }).exports.read as (
    ptr: number,
    bytes: number,
  ) => void;
}
