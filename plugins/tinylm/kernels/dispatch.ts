/**
 * The matmul indirection: model.ts and sampler.ts call `kernels.matmulForward/Backward`, so a
 * validated fast path (kernels/wasm/) can replace the plain JS reference without touching them.
 */
import { matmulBackward, matmulForward } from "./matmul.ts"

export interface MatmulKernels {
  matmulForward: typeof matmulForward
  matmulBackward: typeof matmulBackward
}

export const plainKernels: MatmulKernels = { matmulForward, matmulBackward }

/** Mutable on purpose: `useKernels` swaps the implementation process-wide. */
export const kernels: MatmulKernels = { ...plainKernels }

export const useKernels = (k: MatmulKernels): void => {
  kernels.matmulForward = k.matmulForward
  kernels.matmulBackward = k.matmulBackward
}
