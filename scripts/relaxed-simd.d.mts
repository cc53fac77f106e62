/** ['--experimental-wasm-relaxed-simd'] where this Node accepts the flag, else []. */
export function relaxedSimdFlags(): string[];
