// The vanilla accelerator: a 2-D convolution in plain C11, NCHW data, OIHW weights, f32.
//
// It computes `dimension` output channels at once (its accumulator tile: each input value
// read is multiplied into that many sums), reads the padding's zeros by testing bounds
// rather than from a padded copy, and fuses the epilogue: an optional bias (one value per
// output channel, or NULL) and a clamp to [act_min, act_max] (relu: 0 and INFINITY) that
// keeps NaN, as the compiler's max and min do. Each sum adds its terms in the order of the
// compiler's own loops (input channel, kernel row, kernel column), so results match them.
//
// Sizes: the output is oh x ow with oh = (ih + pad_top + pad_bottom - kh) / stride_h + 1,
// likewise ow. The data may be empty on a side (ih or iw 0) when the padding covers the
// window: a tile of a layer tiled into the on-chip memory (--sram_kb) whose window reads
// nothing but padding, whose outputs are then the bias, clamped. Returns 0, or
// VANILLA_BAD_ARGUMENTS (computing nothing) when a size is out of range; the generated code
// returns a nonzero status to the executor (not -1, which it returns itself when a heap
// allocation fails).
#include <stddef.h>
#include <stdint.h>

// The largest tile: kMaxDimension in backends/vanilla/vanilla.h.
#define VANILLA_MAX_DIMENSION 64
#define VANILLA_BAD_ARGUMENTS 1

int32_t vanilla_conv2dnchw(const float* ifmap, const float* weights, float* result, int64_t oc,
                           int64_t iw, int64_t ih, int64_t ic, int64_t kh, int64_t kw,
                           int64_t stride_h, int64_t stride_w, int64_t pad_top, int64_t pad_left,
                           int64_t pad_bottom, int64_t pad_right, int64_t batch, const float* bias,
                           float act_min, float act_max, int64_t dimension);

int32_t vanilla_conv2dnchw(const float* ifmap, const float* weights, float* result, int64_t oc,
                           int64_t iw, int64_t ih, int64_t ic, int64_t kh, int64_t kw,
                           int64_t stride_h, int64_t stride_w, int64_t pad_top, int64_t pad_left,
                           int64_t pad_bottom, int64_t pad_right, int64_t batch, const float* bias,
                           float act_min, float act_max, int64_t dimension) {
  if (oc < 1 || iw < 0 || ih < 0 || ic < 1 || kh < 1 || kw < 1 || stride_h < 1 || stride_w < 1 ||
      pad_top < 0 || pad_left < 0 || pad_bottom < 0 || pad_right < 0 || batch < 1 ||
      dimension < 1 || dimension > VANILLA_MAX_DIMENSION)
    return VANILLA_BAD_ARGUMENTS;
  const int64_t oh = (ih + pad_top + pad_bottom - kh) / stride_h + 1;
  const int64_t ow = (iw + pad_left + pad_right - kw) / stride_w + 1;
  if (ih + pad_top + pad_bottom < kh || iw + pad_left + pad_right < kw)
    return VANILLA_BAD_ARGUMENTS;
  const int64_t filter = ic * kh * kw;  // the weights of one output channel
  float acc[VANILLA_MAX_DIMENSION];
  for (int64_t n = 0; n < batch; ++n) {
    const float* image = ifmap + n * ic * ih * iw;
    for (int64_t o0 = 0; o0 < oc; o0 += dimension) {
      const int64_t tile = oc - o0 < dimension ? oc - o0 : dimension;
      const float* tile_weights = weights + o0 * filter;
      float* out = result + (n * oc + o0) * oh * ow;
      for (int64_t y = 0; y < oh; ++y) {
        for (int64_t x = 0; x < ow; ++x) {
          for (int64_t j = 0; j < tile; ++j) acc[j] = 0.0f;
          for (int64_t c = 0; c < ic; ++c) {
            for (int64_t ky = 0; ky < kh; ++ky) {
              const int64_t iy = y * stride_h - pad_top + ky;
              if (iy < 0 || iy >= ih) continue;  // a padding row: zeros add nothing
              for (int64_t kx = 0; kx < kw; ++kx) {
                const int64_t ix = x * stride_w - pad_left + kx;
                if (ix < 0 || ix >= iw) continue;
                const float v = image[(c * ih + iy) * iw + ix];
                const float* w = tile_weights + (c * kh + ky) * kw + kx;
                for (int64_t j = 0; j < tile; ++j) acc[j] += v * w[j * filter];
              }
            }
          }
          for (int64_t j = 0; j < tile; ++j) {
            float r = acc[j];
            if (bias != NULL) r += bias[o0 + j];
            if (r < act_min) r = act_min;
            if (act_max < r) r = act_max;
            out[(j * oh + y) * ow + x] = r;
          }
        }
      }
    }
  }
  return 0;
}
