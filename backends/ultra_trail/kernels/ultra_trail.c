// UltraTrail's functional model: what its driver calls, computing what the hardware would, so
// that models run on it long before silicon exists.
//
// The compiler tiles each conv1d layer to fit the accelerator's memories (fmem, wmem, bmem:
// their sizes are the target's attributes) and drives it per tile: the tile's input
// features, weights and bias are moved in by DMA (ut_dma_start, ut_dma_wait), the array
// computes the tile (ut_conv1d), and the output tile is moved out. Data is f32; features
// are [batch][channels][length], weights [channels out][channels in][kernel], each tile
// dense in its own shape.
//
// Nothing here is static: the memories are buffers of the generated code, and one compiled
// library may run in several executors at once.
//
// Every function returns 0, or an error code (the generated code returns it to the
// executor). Not -1, which the generated code itself returns when a heap allocation fails.
#include <stdint.h>
#include <string.h>

enum {
  UT_OK = 0,
  UT_BAD_CONFIG = -3,  // a configuration the hardware cannot run
  UT_BAD_TRANSFER = -6  // a DMA transfer of a negative size
};

// Starts moving `rows` rows of `row_bytes` bytes, row r from src + r * src_stride to
// dst + r * dst_stride. The model moves them at once; the hardware overlaps them with the
// array's work until ut_dma_wait.
int32_t ut_dma_start(int64_t queue, void* dst, const void* src, int64_t row_bytes, int64_t rows,
                     int64_t dst_stride, int64_t src_stride) {
  (void)queue;
  if (row_bytes < 0 || rows < 0) return UT_BAD_TRANSFER;
  for (int64_t r = 0; r < rows; ++r)
    memcpy((char*)dst + r * dst_stride, (const char*)src + r * src_stride, (size_t)row_bytes);
  return UT_OK;
}

int32_t ut_dma_wait(int64_t queue) {
  (void)queue;
  return UT_OK;
}

// Runs a tile of a layer on the array. The array takes `dimension` input channels and
// `dimension` output channels at a time: for each block of output channels, the partial sums
// of each block of input channels are accumulated, then the bias is added and relu applied.
// `bias` may be null (none). A layer whose input channels come in chunks (`first`, `last`:
// which chunk this is) keeps its partial sums in `out` between calls: the first chunk starts
// them from zero, the others add to them, and only the last adds the bias and applies relu.
int32_t ut_conv1d(const float* in, const float* weights, const float* bias, float* out,
                  int32_t dimension, int32_t batch, int32_t ch_in, int32_t ch_out, int32_t kernel,
                  int32_t stride, int32_t pad_left, int32_t pad_right, int32_t len_in,
                  int32_t len_out, int32_t relu, int32_t first, int32_t last) {
  if (dimension < 1 || batch < 1 || ch_in < 1 || ch_out < 1 || kernel < 1 || stride < 1 ||
      pad_left < 0 || pad_right < 0 || len_in < 0 || len_out < 1 || (relu != 0 && relu != 1) ||
      (first != 0 && first != 1) || (last != 0 && last != 1))
    return UT_BAD_CONFIG;
  int64_t padded = (int64_t)len_in + pad_left + pad_right;
  if (padded < kernel || len_out != (padded - kernel) / stride + 1) return UT_BAD_CONFIG;
  for (int32_t n = 0; n < batch; ++n) {
    const float* x = in + (int64_t)n * ch_in * len_in;
    float* y = out + (int64_t)n * ch_out * len_out;
    for (int32_t bo = 0; bo < ch_out; bo += dimension) {
      int32_t o_end = bo + dimension < ch_out ? bo + dimension : ch_out;
      if (first)
        for (int32_t o = bo; o < o_end; ++o)
          for (int32_t p = 0; p < len_out; ++p) y[(int64_t)o * len_out + p] = 0.0f;
      for (int32_t bi = 0; bi < ch_in; bi += dimension) {
        int32_t i_end = bi + dimension < ch_in ? bi + dimension : ch_in;
        for (int32_t o = bo; o < o_end; ++o)
          for (int32_t p = 0; p < len_out; ++p) {
            float sum = y[(int64_t)o * len_out + p];
            for (int32_t i = bi; i < i_end; ++i)
              for (int32_t k = 0; k < kernel; ++k) {
                int64_t q = (int64_t)p * stride - pad_left + k;
                if (q < 0 || q >= len_in) continue;  // padding reads zeros
                sum += x[(int64_t)i * len_in + q] * weights[((int64_t)o * ch_in + i) * kernel + k];
              }
            y[(int64_t)o * len_out + p] = sum;
          }
      }
      if (!last) continue;
      for (int32_t o = bo; o < o_end; ++o)
        for (int32_t p = 0; p < len_out; ++p) {
          float value = y[(int64_t)o * len_out + p] + (bias ? bias[o] : 0.0f);
          y[(int64_t)o * len_out + p] = relu && value <= 0.0f ? 0.0f : value;  // NaN stays
        }
    }
  }
  return UT_OK;
}
