// npu_sim's functional model: a systolic array of rows x cols multiply-accumulate units, its
// three memories (ifmap, filter, ofmap) and its DMA engine, computing what the hardware would
// and counting what it does, so that a model runs on the design before there is silicon.
//
// The compiler tiles each layer to fit the memories and drives the model per tile: the tile's
// operands are moved in by DMA (npu_dma_start, npu_dma_wait), the array computes the tile
// (npu_conv, npu_pool), and the output tile is moved out. Data is f32: features
// (N, C, H, W), a 1-D layer's (N, C, 1, W), a dense layer's (M, K) as (M, K, 1, 1); weights
// (O, C / groups, KH, KW), a dense layer's (N, K), a matmul's (K, N) (weight_kn); each tile
// dense in its own shape.
//
// The array runs a layer as a matrix product per group: P output pixels (batch x height x
// width) by K taps (input channels of the group x kernel rows x kernel columns) by F output
// channels. The dataflow says what stays in the array while the rest streams through, and so
// how the product is cut into folds of the array's size:
//   ws (weight stationary): a fold holds rows taps x cols output channels of weights; all P
//       pixels stream through it; partial sums go to ofmap between folds of taps.
//   os (output stationary): a fold holds rows pixels x cols output channels of sums; all K
//       taps stream through it.
//   is (input stationary): a fold holds rows taps x cols pixels of inputs; all F output
//       channels' weights stream through it; partial sums go to ofmap between folds of taps.
// A depthwise layer (one channel per group) has its own mapping: a fold holds rows taps x cols
// channels, each column fed its own channel's pixels.
//
// Whatever the dataflow, tile and fold, every output is summed in f32 in one order: from the
// bias when the layer's convolution has one (else 0), over input channels, kernel rows and
// kernel columns, skipping taps in the padding; the partial sums of a fold or of a chunk of
// input channels (first, last: the compiler cuts them when ofmap holds accumulators) are kept
// in ofmap exactly. So the results do not depend on the design: a sweep over array sizes,
// dataflows and memory sizes computes the same bits. A bias added after the convolution is
// added, and the activation's clamp applied, when the last fold of the last chunk is written.
//
// Each function counts what it does into `events`, the calling layer's counters (the compiler
// passes them; NPU_EVENT_* come first in this file): the array's MACs and its reads and writes
// of each memory, in elements, and the DMA engine's bytes and transfers. The compiler's
// performance model predicts the same counts from the tile plan, and `uma sim` checks that
// they agree.
//
// Nothing here is static: one compiled library may run in several executors at once.
// Functions return 0, or an error code (computing nothing) for arguments that do not agree.
#include <math.h>
#include <stdint.h>
#include <string.h>

enum { NPU_OK = 0, NPU_BAD_ARGUMENTS = 3, NPU_BAD_TRANSFER = 6 };
enum { NPU_WS = 0, NPU_OS = 1, NPU_IS = 2 };

int32_t npu_dma_start(int64_t queue, void* dst, const void* src, int64_t row_bytes, int64_t rows,
                      int64_t dst_stride, int64_t src_stride, int64_t* events) {
  (void)queue;
  if (row_bytes < 0 || rows < 0) return NPU_BAD_TRANSFER;
  for (int64_t r = 0; r < rows; ++r)
    memcpy((char*)dst + r * dst_stride, (const char*)src + r * src_stride, (size_t)row_bytes);
  events[NPU_EVENT_dma_bytes] += row_bytes * rows;
  events[NPU_EVENT_dma_transfers] += 1;
  return NPU_OK;
}

// The model moves data at once; the hardware overlaps it with the array's work until here.
int32_t npu_dma_wait(int64_t queue) {
  (void)queue;
  return NPU_OK;
}

// The output size of a window along one axis (floor mode), or -1 when there is none.
static int64_t npu_windows(int64_t input, int64_t pad_before, int64_t pad_after, int64_t kernel,
                           int64_t dilation, int64_t stride) {
  int64_t span = input + pad_before + pad_after - (dilation * (kernel - 1) + 1);
  return span < 0 ? -1 : span / stride + 1;
}

// The taps of a tap table: larger layers take the slower path of npu_dot.
#define NPU_MAX_TAPS 8192

typedef struct {
  const float *x, *w, *bias;
  float* y;
  int64_t channels, height, width, out_channels, kh, kw, out_h, out_w;
  int64_t stride_h, stride_w, pad_top, pad_left, dilation_h, dilation_w, groups, weight_kn;
  int64_t bias_mode, first, last;
  float act_min, act_max;
  // Per group: the product's sizes.
  int64_t P, K, F, group_channels;
  // Per tap of a group, its input's offset from the window's first element (when K fits).
  const int64_t* taps;
} npu_layer;

// Output (p, o)'s sum over taps [k0, k1) of its group, added to `acc` in order.
static float npu_dot(const npu_layer* L, int64_t p, int64_t o, int64_t k0, int64_t k1, float acc) {
  const int64_t plane = L->out_h * L->out_w, taps = L->kh * L->kw;
  const int64_t n = p / plane, oy = p % plane / L->out_w, ox = p % L->out_w;
  const int64_t g = o / L->F;
  const float* x = L->x + (n * L->channels + g * L->group_channels) * L->height * L->width;
  const int64_t iy0 = oy * L->stride_h - L->pad_top, ix0 = ox * L->stride_w - L->pad_left;
  // A window inside the input reads every tap: the same sum, without bounds to test.
  if (L->taps && !L->weight_kn && iy0 >= 0 && iy0 + (L->kh - 1) * L->dilation_h < L->height &&
      ix0 >= 0 && ix0 + (L->kw - 1) * L->dilation_w < L->width) {
    const float* window = x + iy0 * L->width + ix0;
    const float* w = L->w + o * L->K;
    for (int64_t k = k0; k < k1; ++k) acc += window[L->taps[k]] * w[k];
    return acc;
  }
  int64_t c = k0 / taps, ky = k0 % taps / L->kw, kx = k0 % L->kw;
  for (int64_t k = k0; k < k1; ++k) {
    const int64_t iy = iy0 + ky * L->dilation_h, ix = ix0 + kx * L->dilation_w;
    if (iy >= 0 && iy < L->height && ix >= 0 && ix < L->width) {
      const float w = L->weight_kn ? L->w[k * L->out_channels + o] : L->w[o * L->K + k];
      acc += x[(c * L->height + iy) * L->width + ix] * w;
    }
    if (++kx == L->kw) {
      kx = 0;
      if (++ky == L->kh) ky = 0, ++c;
    }
  }
  return acc;
}

static float* npu_out(const npu_layer* L, int64_t p, int64_t o) {
  const int64_t plane = L->out_h * L->out_w;
  return L->y + (p / plane * L->out_channels + o) * plane + p % plane;
}

// Sums taps [k0, k1) of output (p, o) into ofmap: from the start value when they are the
// layer's first, else from what ofmap holds; the epilogue when they are its last.
static void npu_accumulate(const npu_layer* L, int64_t p, int64_t o, int64_t k0, int64_t k1,
                           int64_t* events) {
  float* out = npu_out(L, p, o);
  float acc;
  if (k0 == 0 && L->first) {
    acc = L->bias_mode == 1 ? L->bias[o] : 0.0f;
  } else {
    acc = *out;
    events[NPU_EVENT_ofmap_reads] += 1;
  }
  acc = npu_dot(L, p, o, k0, k1, acc);
  if (k1 == L->K && L->last) {
    if (L->bias_mode == 2) acc += L->bias[o];
    if (acc < L->act_min) acc = L->act_min;  // NaN stays
    if (acc > L->act_max) acc = L->act_max;
  }
  *out = acc;
  events[NPU_EVENT_ofmap_writes] += 1;
}

static int64_t npu_min(int64_t a, int64_t b) { return a < b ? a : b; }

// One group's product, fold by fold as the dataflow cuts it.
static void npu_group(const npu_layer* L, int64_t g, int64_t rows, int64_t cols, int64_t dataflow,
                      int64_t* events) {
  const int64_t P = L->P, K = L->K, F = L->F, o0 = g * F;
  if (dataflow == NPU_WS) {
    for (int64_t f0 = 0; f0 < F; f0 += cols)
      for (int64_t k0 = 0; k0 < K; k0 += rows) {
        const int64_t fc = npu_min(cols, F - f0), kr = npu_min(rows, K - k0);
        events[NPU_EVENT_filter_reads] += kr * fc;
        events[NPU_EVENT_ifmap_reads] += P * kr;
        events[NPU_EVENT_macs] += P * kr * fc;
        for (int64_t p = 0; p < P; ++p)
          for (int64_t f = f0; f < f0 + fc; ++f) npu_accumulate(L, p, o0 + f, k0, k0 + kr, events);
      }
  } else if (dataflow == NPU_OS) {
    for (int64_t p0 = 0; p0 < P; p0 += rows)
      for (int64_t f0 = 0; f0 < F; f0 += cols) {
        const int64_t pr = npu_min(rows, P - p0), fc = npu_min(cols, F - f0);
        events[NPU_EVENT_ifmap_reads] += pr * K;
        events[NPU_EVENT_filter_reads] += fc * K;
        events[NPU_EVENT_macs] += pr * K * fc;
        for (int64_t p = p0; p < p0 + pr; ++p)
          for (int64_t f = f0; f < f0 + fc; ++f) npu_accumulate(L, p, o0 + f, 0, K, events);
      }
  } else {
    for (int64_t k0 = 0; k0 < K; k0 += rows)
      for (int64_t p0 = 0; p0 < P; p0 += cols) {
        const int64_t kr = npu_min(rows, K - k0), pc = npu_min(cols, P - p0);
        events[NPU_EVENT_ifmap_reads] += kr * pc;
        events[NPU_EVENT_filter_reads] += F * kr;
        events[NPU_EVENT_macs] += kr * pc * F;
        for (int64_t p = p0; p < p0 + pc; ++p)
          for (int64_t f = 0; f < F; ++f) npu_accumulate(L, p, o0 + f, k0, k0 + kr, events);
      }
  }
}

// A depthwise layer: a fold holds rows taps of cols channels, each column its own channel.
static void npu_depthwise(const npu_layer* L, int64_t rows, int64_t cols, int64_t* events) {
  const int64_t P = L->P, K = L->K, G = L->groups;
  for (int64_t g0 = 0; g0 < G; g0 += cols)
    for (int64_t k0 = 0; k0 < K; k0 += rows) {
      const int64_t gc = npu_min(cols, G - g0), kr = npu_min(rows, K - k0);
      events[NPU_EVENT_filter_reads] += kr * gc;
      events[NPU_EVENT_ifmap_reads] += P * kr * gc;
      events[NPU_EVENT_macs] += P * kr * gc;
      for (int64_t p = 0; p < P; ++p)
        for (int64_t g = g0; g < g0 + gc; ++g) npu_accumulate(L, p, g, k0, k0 + kr, events);
    }
}

// A tile of a convolution (2-D; a 1-D one with height 1), a dense layer or a matmul.
// bias_mode: 0 none, 1 the convolution's own bias (the sums start from it), 2 a bias added
// after it. act_min, act_max: the activation's clamp (-inf, inf for none).
int32_t npu_conv(const float* x, const float* w, const float* bias, float* y, int64_t batch,
                 int64_t channels, int64_t height, int64_t width, int64_t out_channels, int64_t kh,
                 int64_t kw, int64_t out_h, int64_t out_w, int64_t stride_h, int64_t stride_w,
                 int64_t pad_top, int64_t pad_left, int64_t pad_bottom, int64_t pad_right,
                 int64_t dilation_h, int64_t dilation_w, int64_t groups, int64_t weight_kn,
                 int64_t bias_mode, float act_min, float act_max, int32_t first, int32_t last,
                 int64_t rows, int64_t cols, int64_t dataflow, int64_t* events) {
  if (batch < 1 || channels < 1 || out_channels < 1 || kh < 1 || kw < 1 || stride_h < 1 ||
      stride_w < 1 || dilation_h < 1 || dilation_w < 1 || groups < 1 || pad_top < 0 ||
      pad_left < 0 || pad_bottom < 0 || pad_right < 0 || channels % groups != 0 ||
      out_channels % groups != 0 || bias_mode < 0 || bias_mode > 2 ||
      (bias_mode != 0 && bias == 0) || (first != 0 && first != 1) || (last != 0 && last != 1) ||
      rows < 1 || cols < 1 || dataflow < NPU_WS || dataflow > NPU_IS ||
      (weight_kn && (groups != 1 || kh != 1 || kw != 1)) ||
      out_h != npu_windows(height, pad_top, pad_bottom, kh, dilation_h, stride_h) ||
      out_w != npu_windows(width, pad_left, pad_right, kw, dilation_w, stride_w))
    return NPU_BAD_ARGUMENTS;
  npu_layer L = {x, w, bias, y, channels, height, width, out_channels, kh, kw, out_h, out_w,
                 stride_h, stride_w, pad_top, pad_left, dilation_h, dilation_w, groups, weight_kn,
                 bias_mode, first, last, act_min, act_max, 0, 0, 0, 0, 0};
  L.group_channels = channels / groups;
  L.P = batch * out_h * out_w;
  L.K = L.group_channels * kh * kw;
  L.F = out_channels / groups;
  int64_t taps[NPU_MAX_TAPS];
  if (L.K <= NPU_MAX_TAPS) {
    for (int64_t k = 0; k < L.K; ++k) {
      const int64_t c = k / (kh * kw), ky = k % (kh * kw) / kw, kx = k % kw;
      taps[k] = (c * height + ky * dilation_h) * width + kx * dilation_w;
    }
    L.taps = taps;
  }
  if (groups > 1 && L.group_channels == 1 && L.F == 1) {
    npu_depthwise(&L, rows, cols, events);
    return NPU_OK;
  }
  for (int64_t g = 0; g < groups; ++g) npu_group(&L, g, rows, cols, dataflow, events);
  return NPU_OK;
}

// A tile of a 2-D pooling layer on the array's vector unit, cols outputs at a time: max or
// average (kind 0 or 1) over each window's taps inside the input, an average divided by the
// taps inside the padded input with count_include_pad, else by those inside the input.
int32_t npu_pool(const float* x, float* y, int64_t batch, int64_t channels, int64_t height,
                 int64_t width, int64_t out_h, int64_t out_w, int64_t kh, int64_t kw,
                 int64_t stride_h, int64_t stride_w, int64_t pad_top, int64_t pad_left,
                 int64_t pad_bottom, int64_t pad_right, int64_t kind, int64_t count_include_pad,
                 int64_t* events) {
  if (batch < 1 || channels < 1 || kh < 1 || kw < 1 || stride_h < 1 || stride_w < 1 ||
      pad_top < 0 || pad_left < 0 || pad_bottom < 0 || pad_right < 0 || kind < 0 || kind > 1 ||
      out_h != npu_windows(height, pad_top, pad_bottom, kh, 1, stride_h) ||
      out_w != npu_windows(width, pad_left, pad_right, kw, 1, stride_w))
    return NPU_BAD_ARGUMENTS;
  for (int64_t plane = 0; plane < batch * channels; ++plane) {
    const float* in = x + plane * height * width;
    for (int64_t oy = 0; oy < out_h; ++oy)
      for (int64_t ox = 0; ox < out_w; ++ox) {
        const int64_t iy0 = oy * stride_h - pad_top, ix0 = ox * stride_w - pad_left;
        float max = -INFINITY, sum = 0.0f;
        int64_t inside = 0;
        for (int64_t ky = 0; ky < kh; ++ky)
          for (int64_t kx = 0; kx < kw; ++kx) {
            const int64_t iy = iy0 + ky, ix = ix0 + kx;
            if (iy < 0 || iy >= height || ix < 0 || ix >= width) continue;
            const float v = in[iy * width + ix];
            if (!isnan(max) && (isnan(v) || v > max)) max = v;  // a NaN wins
            sum += v;
            ++inside;
          }
        float value = max;
        if (kind == 1) value = sum / (float)(count_include_pad ? kh * kw : inside);
        y[(plane * out_h + oy) * out_w + ox] = value;
      }
  }
  events[NPU_EVENT_ifmap_reads] += batch * channels * out_h * out_w * kh * kw;
  events[NPU_EVENT_ofmap_writes] += batch * channels * out_h * out_w;
  return NPU_OK;
}
