// The model's weights back in the Hugging Face layout (names and (out, in) shapes), ready for
// writeSafetensors: full-parameter runs and the demo model are saved this way.
import { baseVariables, type DecoderParams } from './params.ts';
import type { TensorToWrite } from '../model_files/safetensors_write.ts';

/** Every base weight by its HF name; 2-D weights (stored (in, out) here) are transposed back. */
export function hfWeights(params: DecoderParams): TensorToWrite[] {
  return [...baseVariables(params)].map(([name, variable]) => {
    const stored = variable.dataSync() as Float32Array;
    if (variable.shape.length !== 2)
      return { name, shape: [...variable.shape], data: stored.slice() };
    const [rows, cols] = variable.shape as [number, number];
    const data = new Float32Array(stored.length);
    for (let r = 0; r < rows; r++)
      for (let c = 0; c < cols; c++) data[c * rows + r] = stored[r * cols + c]!;
    return { name, shape: [cols, rows], data };
  });
}
