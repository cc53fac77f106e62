// The model's weights back in the Hugging Face layout (names and (out, in) shapes), ready for
// writeSafetensors: full-parameter runs and the demo model are saved this way.
import { baseVariables, type DecoderParams } from './params.ts';
import type { TensorToWrite } from '../model_files/safetensors_write.ts';

/**
 * Every base weight by its HF name; 2-D weights (stored (in, out) here) are transposed back, and
 * the vocabulary chunks of a split embedding or head (`<name>#<i>`, vocab_split.ts) joined again.
 */
export function hfWeights(params: DecoderParams): TensorToWrite[] {
  const out: { name: string; shape: number[]; pieces: Float32Array[] }[] = [];
  for (const [key, variable] of baseVariables(params)) {
    const stored = variable.dataSync() as Float32Array;
    const [, chunkOf, index] = /^(.+)#(\d+)$/.exec(key) ?? [];
    const name = chunkOf ?? key;
    if (variable.shape.length !== 2) {
      out.push({ name, shape: [...variable.shape], pieces: [stored.slice()] });
      continue;
    }
    const [rows, cols] = variable.shape as [number, number];
    const data = new Float32Array(stored.length);
    for (let r = 0; r < rows; r++)
      for (let c = 0; c < cols; c++) data[c * rows + r] = stored[r * cols + c]!;
    const previous = out[out.length - 1];
    if (index !== undefined && index !== '0' && previous?.name === name) {
      previous.shape[0]! += cols; // a chunk's columns are the next rows of the HF matrix (V, D)
      previous.pieces.push(data);
    } else out.push({ name, shape: [cols, rows], pieces: [data] });
  }
  return out.map(({ name, shape, pieces }) => ({ name, shape, data: joined(pieces) }));
}

function joined(pieces: Float32Array[]): Float32Array {
  if (pieces.length === 1) return pieces[0]!;
  const data = new Float32Array(pieces.reduce((sum, piece) => sum + piece.length, 0));
  let offset = 0;
  for (const piece of pieces) {
    data.set(piece, offset);
    offset += piece.length;
  }
  return data;
}
