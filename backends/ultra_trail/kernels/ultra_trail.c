// UltraTrail's functional model: the accelerator's three memories and what its driver calls,
// computing what the hardware would, so that models run on it long before silicon exists.
//
// A layer runs as: the weights into weight memory (ut_load_wmem), the bias into bias memory
// (ut_load_bmem), one sample's input features into feature memory (ut_load_fmem), the run
// with the layer's configuration (ut_run), which writes the output features into feature
// memory after the input, and their copy out (ut_store_fmem). Data is f32; features are
// [channels][length], weights [channels out][channels in][kernel].
//
// The memories and registers are the accelerator's state (struct ut_state), which the
// generated code passes first to every call: each function partitioned for ultra_trail has
// a state of its own in each executor (uma/tir/state.h), which ut_init prepares when the
// executor loads the model. Nothing here is static, so two executors can run one library
// (the object cache shares it between models with the same code) at once.
//
// Every function returns 0, or an error code (the generated code returns it to the
// executor). Not -1, which the generated code itself returns when a heap allocation fails.
#include <stdint.h>
#include <string.h>

enum {
  UT_OK = 0,
  UT_DOES_NOT_FIT = -2,    // a load larger than its memory
  UT_BAD_CONFIG = -3,      // a configuration the hardware cannot run, or that disagrees with
                           // what was loaded
  UT_NOTHING_STORED = -4,  // a store of other than the last run's output
  UT_BAD_STATE = -5        // a state of another size than struct ut_state
};

// The memories, as sized in the hardware (the ultra_trail target's defaults).
#define UT_WMEM_BYTES (64 * 1024)
#define UT_FMEM_BYTES (32 * 1024)
#define UT_BMEM_BYTES (2 * 1024)

// The accelerator's state; its size is the backend's kStateBytes (codegen.cc), which
// ut_init checks.
struct ut_state {
  // Bytes loaded into each memory, and where the last run left its output in feature
  // memory (out_bytes -1: nothing to store).
  int64_t wmem_loaded, fmem_loaded, bmem_loaded;
  int64_t out_offset, out_bytes;
  float wmem[UT_WMEM_BYTES / sizeof(float)];
  float fmem[UT_FMEM_BYTES / sizeof(float)];
  float bmem[UT_BMEM_BYTES / sizeof(float)];
};

// At load time, on a zeroed state of `bytes` bytes.
int32_t ut_init(void* state, int64_t bytes) {
  if (bytes != (int64_t)sizeof(struct ut_state)) return UT_BAD_STATE;
  struct ut_state* ut = state;
  ut->out_bytes = -1;
  return UT_OK;
}

static int32_t ut_load(float* memory, int64_t capacity, int64_t* loaded, const void* src,
                       int64_t bytes) {
  if (bytes < 0 || bytes > capacity || bytes % (int64_t)sizeof(float) != 0) return UT_DOES_NOT_FIT;
  memcpy(memory, src, (size_t)bytes);
  *loaded = bytes;
  return UT_OK;
}

int32_t ut_load_wmem(void* state, void* src, int64_t bytes) {
  struct ut_state* ut = state;
  return ut_load(ut->wmem, UT_WMEM_BYTES, &ut->wmem_loaded, src, bytes);
}

int32_t ut_load_bmem(void* state, void* src, int64_t bytes) {
  struct ut_state* ut = state;
  return ut_load(ut->bmem, UT_BMEM_BYTES, &ut->bmem_loaded, src, bytes);
}

// Input features replace whatever feature memory held, the last output included.
int32_t ut_load_fmem(void* state, void* src, int64_t bytes) {
  struct ut_state* ut = state;
  ut->out_bytes = -1;
  return ut_load(ut->fmem, UT_FMEM_BYTES, &ut->fmem_loaded, src, bytes);
}

// Runs one layer on the loaded memories. The array takes `dimension` input channels and
// `dimension` output channels at a time: for each block of output channels, the partial
// sums of each block of input channels are accumulated, then the bias is added and relu
// applied.
int32_t ut_run(void* state, int32_t dimension, int32_t ch_in, int32_t blocks_in, int32_t ch_out,
               int32_t blocks_out, int32_t kernel, int32_t stride, int32_t pad_left,
               int32_t pad_right, int32_t len_in, int32_t len_out, int32_t bias, int32_t relu) {
  struct ut_state* ut = state;
  ut->out_bytes = -1;
  // The configuration as the registers take it...
  if (dimension < 1 || ch_in < 1 || ch_out < 1 || kernel < 1 || stride < 1 || pad_left < 0 ||
      pad_right < 0 || len_in < 1 || len_out < 1 || (bias != 0 && bias != 1) ||
      (relu != 0 && relu != 1))
    return UT_BAD_CONFIG;
  if (blocks_in != (ch_in + dimension - 1) / dimension ||
      blocks_out != (ch_out + dimension - 1) / dimension)
    return UT_BAD_CONFIG;
  int64_t padded = (int64_t)len_in + pad_left + pad_right;
  if (padded < kernel || len_out != (padded - kernel) / stride + 1) return UT_BAD_CONFIG;
  // ...and as what was loaded: the sizes must be the layer's.
  int64_t in_elements = (int64_t)ch_in * len_in, out_elements = (int64_t)ch_out * len_out;
  if (ut->wmem_loaded != (int64_t)ch_out * ch_in * kernel * (int64_t)sizeof(float) ||
      ut->fmem_loaded != in_elements * (int64_t)sizeof(float) ||
      (bias && ut->bmem_loaded != (int64_t)ch_out * (int64_t)sizeof(float)))
    return UT_BAD_CONFIG;
  if ((in_elements + out_elements) * (int64_t)sizeof(float) > UT_FMEM_BYTES) return UT_DOES_NOT_FIT;

  const float* in = ut->fmem;
  float* out = ut->fmem + in_elements;
  for (int32_t bo = 0; bo < blocks_out; ++bo) {
    int32_t o_end = (bo + 1) * dimension < ch_out ? (bo + 1) * dimension : ch_out;
    for (int32_t o = bo * dimension; o < o_end; ++o)
      for (int32_t p = 0; p < len_out; ++p) out[(int64_t)o * len_out + p] = 0.0f;
    for (int32_t bi = 0; bi < blocks_in; ++bi) {
      int32_t i_end = (bi + 1) * dimension < ch_in ? (bi + 1) * dimension : ch_in;
      for (int32_t o = bo * dimension; o < o_end; ++o)
        for (int32_t p = 0; p < len_out; ++p) {
          float sum = out[(int64_t)o * len_out + p];
          for (int32_t i = bi * dimension; i < i_end; ++i)
            for (int32_t k = 0; k < kernel; ++k) {
              int64_t q = (int64_t)p * stride - pad_left + k;
              if (q < 0 || q >= len_in) continue;  // padding reads zeros
              sum += in[(int64_t)i * len_in + q] * ut->wmem[((int64_t)o * ch_in + i) * kernel + k];
            }
          out[(int64_t)o * len_out + p] = sum;
        }
    }
    for (int32_t o = bo * dimension; o < o_end; ++o)
      for (int32_t p = 0; p < len_out; ++p) {
        float value = out[(int64_t)o * len_out + p] + (bias ? ut->bmem[o] : 0.0f);
        out[(int64_t)o * len_out + p] = relu && value <= 0.0f ? 0.0f : value;  // NaN stays
      }
  }
  ut->out_offset = in_elements;
  ut->out_bytes = out_elements * (int64_t)sizeof(float);
  return UT_OK;
}

// Copies the last run's output features out; `bytes` must be their size.
int32_t ut_store_fmem(void* state, void* dst, int64_t bytes) {
  struct ut_state* ut = state;
  if (ut->out_bytes < 0 || bytes != ut->out_bytes) return UT_NOTHING_STORED;
  memcpy(dst, ut->fmem + ut->out_offset, (size_t)bytes);
  return UT_OK;
}
