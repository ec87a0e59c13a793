// The dnnl backend's C: each composite the backend takes is one oneDNN primitive (through
// oneDNN's C API, since the generated code is C), created once when the model loads; but a
// concatenation, which it copies by rows itself.
//
// Every op (conv, dense, matmul, concat, pool, softmax, binary, batch_norm, layer_norm,
// eltwise) has three entry points with the same arguments after the state slot:
//   dnnl_kernel_<op>_init(slot, ...)  at load: creates the primitive, reorders the weights
//                                     into the layout it wants; inputs, outputs and the
//                                     scratchpad are NULL then
//   dnnl_kernel_<op>(slot, ...)       each run: reorders the input into the primitive's
//                                     layout if it wants another, executes, reorders the
//                                     result back
//   dnnl_kernel_release(slot)         when the executor is destroyed
// `slot` is the call's part of the function's load-time state (zeroed by the executor); it
// holds the pointer to the op's struct, which lives on the heap, never in a static: one
// library may run in several executors at once. Data is f32, plain (NCW, NCHW, NCDHW) or,
// where a layout argument says so, channels last or blocked by 16 channels
// (dnnl_kernel_data_tag); weights are plain (OIHW, grouped GOIHW as the same bytes). The last
// two arguments of an op with a primitive (all but concat, a copy) are the scratchpad the
// primitive needs, from the caller's memory (uma's arena), and its size as the build measured
// it; should this CPU's primitive want more, the op allocates its own. oneDNN runs on OpenMP,
// whose thread count the executor sets from the run's thread option; a small primitive runs
// on one.
//
// Returns 0, or DNNL_KERNEL_STATUS_BASE + the dnnl_status_t of the call that failed (the
// executor reports it, naming the function).
#include <oneapi/dnnl/dnnl.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define DNNL_KERNEL_STATUS_BASE 100
#define DNNL_KERNEL_BAD_ARGUMENTS 99

// Post-op arguments: the eltwise algorithm (a dnnl_alg_kind_t, 0 for none) and its alpha
// and beta, then a second one after it (0 for none: hard_sigmoid is linear, then clip); has_sum: a
// residual tensor of the result's shape is added before it: by a binary add post-op reading it
// where it is, when the result is computed in the caller's layout; else by the sum post-op, which
// adds what the destination holds (the residual is copied or reordered there first).
typedef struct dnnl_kernel_op {
  dnnl_engine_t engine;
  dnnl_stream_t stream;
  dnnl_primitive_t primitive;
  // The primitive's own memories (its layouts), and the plain ones of the caller.
  dnnl_memory_t src, weights, bias, dst, scratchpad;
  // A normalization's parameters (scale, shift, mean, variance) or a matmul's computed
  // weights, read where the caller has them: the executor's arguments DNNL_ARG_<extra_args[i]>.
  dnnl_memory_t extras[4];
  int extra_args[4], num_extras;
  // user_residual: a sum's or binary add's residual, or a binary op's second operand.
  dnnl_memory_t user_src, user_dst, user_residual;
  // Plain <-> the primitive's layouts; null when the layouts are the same.
  dnnl_primitive_t src_reorder, dst_reorder, sum_reorder;
  void* buffers[5];  // src, weights, bias, dst, scratchpad data the op owns
  size_t dst_bytes;
  int has_bias, has_sum, binary_residual, binary_op;
  int caller_scratchpad;  // the scratchpad is the caller's, given at each run
  int one_thread;         // made and run on one thread: too small to share
} dnnl_kernel_op;

// A primitive whose data and weights take fewer bytes than this is made and run on one
// thread: OpenMP's fork and join cost it more than the second thread saves (the tiny
// transformer's 23 primitives took 0.13 ms a run on 2 threads, 0.046 ms on 1). Made so, its
// work is split for one thread, so it is run so too.
#define DNNL_KERNEL_ONE_THREAD_BYTES ((size_t)128 * 1024)

// Sets one thread for what follows when `op` is small; returns the thread count to restore
// (0: nothing to restore).
static int dnnl_kernel_enter(const dnnl_kernel_op* op) {
#ifdef _OPENMP
  int threads = omp_get_max_threads();
  if (op->one_thread && threads > 1) {
    omp_set_num_threads(1);
    return threads;
  }
#endif
  (void)op;
  return 0;
}

static void dnnl_kernel_leave(int threads) {
#ifdef _OPENMP
  if (threads > 0) omp_set_num_threads(threads);
#endif
  (void)threads;
}

static void* dnnl_kernel_alloc(size_t bytes) {
  return aligned_alloc(64, (bytes + 63) / 64 * 64 + 64);
}

static void dnnl_kernel_free_op(dnnl_kernel_op* op) {
  dnnl_primitive_t primitives[] = {op->primitive, op->src_reorder, op->dst_reorder,
                                   op->sum_reorder};
  for (size_t i = 0; i < sizeof primitives / sizeof primitives[0]; ++i)
    if (primitives[i] != NULL) dnnl_primitive_destroy(primitives[i]);
  dnnl_memory_t memories[] = {op->src,        op->weights,  op->bias,     op->dst,
                              op->scratchpad, op->user_src, op->user_dst, op->user_residual};
  for (size_t i = 0; i < sizeof memories / sizeof memories[0]; ++i)
    if (memories[i] != NULL) dnnl_memory_destroy(memories[i]);
  for (int i = 0; i < op->num_extras; ++i) dnnl_memory_destroy(op->extras[i]);
  for (size_t i = 0; i < sizeof op->buffers / sizeof op->buffers[0]; ++i) free(op->buffers[i]);
  if (op->stream != NULL) dnnl_stream_destroy(op->stream);
  if (op->engine != NULL) dnnl_engine_destroy(op->engine);
  free(op);
}

int32_t dnnl_kernel_release(void* slot);
int32_t dnnl_kernel_release(void* slot) {
  dnnl_kernel_op** held = (dnnl_kernel_op**)slot;
  if (*held != NULL) dnnl_kernel_free_op(*held);
  *held = NULL;
  return 0;
}

static dnnl_status_t dnnl_kernel_reorder(dnnl_primitive_t* reorder, dnnl_engine_t engine,
                                         const dnnl_memory_desc_t* from,
                                         const dnnl_memory_desc_t* to) {
  dnnl_primitive_desc_t pd;
  dnnl_status_t status = dnnl_reorder_primitive_desc_create(&pd, from, engine, to, engine, NULL);
  if (status != dnnl_success) return status;
  status = dnnl_primitive_create(reorder, pd);
  dnnl_primitive_desc_destroy(pd);
  return status;
}

static dnnl_status_t dnnl_kernel_run_reorder(dnnl_primitive_t reorder, dnnl_stream_t stream,
                                             dnnl_memory_t from, dnnl_memory_t to) {
  dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}};
  return dnnl_primitive_execute(reorder, stream, 2, args);
}

// A memory of `md` on a buffer the op owns (buffers[index]).
static dnnl_status_t dnnl_kernel_owned_memory(dnnl_kernel_op* op, dnnl_memory_t* memory,
                                              const dnnl_memory_desc_t* md, int index) {
  op->buffers[index] = dnnl_kernel_alloc(dnnl_memory_desc_get_size(md));
  if (op->buffers[index] == NULL) return dnnl_out_of_memory;
  return dnnl_memory_create(memory, md, op->engine, op->buffers[index]);
}

// The weights in the primitive's layout, reordered once from the caller's.
static dnnl_status_t dnnl_kernel_load_weights(dnnl_kernel_op* op, const dnnl_memory_desc_t* user_md,
                                              const dnnl_memory_desc_t* md, const float* weights) {
  dnnl_memory_t user_weights = NULL;
  dnnl_primitive_t reorder = NULL;
  dnnl_status_t status = dnnl_kernel_owned_memory(op, &op->weights, md, 1);
  if (status == dnnl_success)
    status = dnnl_memory_create(&user_weights, user_md, op->engine, (void*)weights);
  if (status == dnnl_success) status = dnnl_kernel_reorder(&reorder, op->engine, user_md, md);
  if (status == dnnl_success)
    status = dnnl_kernel_run_reorder(reorder, op->stream, user_weights, op->weights);
  if (status == dnnl_success) status = dnnl_stream_wait(op->stream);
  if (reorder != NULL) dnnl_primitive_destroy(reorder);
  if (user_weights != NULL) dnnl_memory_destroy(user_weights);
  return status;
}

// The rest of an init once the primitive descriptor is made (which it takes): the
// primitive, the weights reordered and the bias copied, the reorders of the data when the
// primitive wants other layouts than the caller's plain ones, the scratchpad. On failure the
// slot's op is released.
static int32_t dnnl_kernel_finish_init(dnnl_kernel_op* op, dnnl_primitive_desc_t pd,
                                       const dnnl_memory_desc_t* user_src_md,
                                       const dnnl_memory_desc_t* user_weights_md,
                                       const dnnl_memory_desc_t* bias_md,
                                       const dnnl_memory_desc_t* user_dst_md, const float* weights,
                                       const float* bias, int64_t scratchpad_bytes, void* slot) {
  const dnnl_memory_desc_t* src_md = dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0);
  const dnnl_memory_desc_t* weights_md = dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
  const dnnl_memory_desc_t* dst_md = dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0);
  const dnnl_memory_desc_t* scratchpad_md =
      dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
  dnnl_status_t status = dnnl_primitive_create(&op->primitive, pd);
  if (status == dnnl_success && weights != NULL)
    status = dnnl_kernel_load_weights(op, user_weights_md, weights_md, weights);
  if (status == dnnl_success && op->has_bias) {
    status = dnnl_kernel_owned_memory(op, &op->bias, bias_md, 2);
    if (status == dnnl_success) memcpy(op->buffers[2], bias, dnnl_memory_desc_get_size(bias_md));
  }
  if (status == dnnl_success)
    status = dnnl_memory_create(&op->user_src, user_src_md, op->engine, DNNL_MEMORY_NONE);
  if (status == dnnl_success)
    status = dnnl_memory_create(&op->user_dst, user_dst_md, op->engine, DNNL_MEMORY_NONE);
  if (status == dnnl_success && !dnnl_memory_desc_equal(src_md, user_src_md)) {
    status = dnnl_kernel_owned_memory(op, &op->src, src_md, 0);
    if (status == dnnl_success)
      status = dnnl_kernel_reorder(&op->src_reorder, op->engine, user_src_md, src_md);
  }
  if (status == dnnl_success && !dnnl_memory_desc_equal(dst_md, user_dst_md)) {
    status = dnnl_kernel_owned_memory(op, &op->dst, dst_md, 3);
    if (status == dnnl_success)
      status = dnnl_kernel_reorder(&op->dst_reorder, op->engine, dst_md, user_dst_md);
    if (status == dnnl_success && op->has_sum)
      status = dnnl_kernel_reorder(&op->sum_reorder, op->engine, user_dst_md, dst_md);
    if (status == dnnl_success && op->has_sum)
      status = dnnl_memory_create(&op->user_residual, user_dst_md, op->engine, DNNL_MEMORY_NONE);
  } else if (status == dnnl_success && op->binary_residual) {
    status = dnnl_memory_create(&op->user_residual, user_dst_md, op->engine, DNNL_MEMORY_NONE);
  }
  op->dst_bytes = dnnl_memory_desc_get_size(user_dst_md);
  size_t scratchpad_size = dnnl_memory_desc_get_size(scratchpad_md);
  op->caller_scratchpad = scratchpad_size > 0 && scratchpad_size <= (size_t)scratchpad_bytes;
  if (status == dnnl_success && op->caller_scratchpad)
    status = dnnl_memory_create(&op->scratchpad, scratchpad_md, op->engine, DNNL_MEMORY_NONE);
  else if (status == dnnl_success && scratchpad_size > 0)
    status = dnnl_kernel_owned_memory(op, &op->scratchpad, scratchpad_md, 4);
  dnnl_primitive_desc_destroy(pd);
  if (status == dnnl_success) return 0;
  dnnl_kernel_release(slot);
  return DNNL_KERNEL_STATUS_BASE + (int32_t)status;
}

// One run: src → the primitive → dst, adding `residual` first when the op has a sum; for a
// binary op, `residual` is its second operand; `extras`, the op's extra memories' data.
static int32_t dnnl_kernel_run(dnnl_kernel_op* op, const float* src, const float* residual,
                               float* dst, void* scratchpad, const float* const* extras) {
  if (op == NULL || src == NULL || dst == NULL || (op->has_sum && residual == NULL) ||
      (op->caller_scratchpad && scratchpad == NULL))
    return DNNL_KERNEL_BAD_ARGUMENTS;
  dnnl_status_t status = dnnl_memory_set_data_handle(op->user_src, (void*)src);
  if (status == dnnl_success && op->caller_scratchpad)
    status = dnnl_memory_set_data_handle(op->scratchpad, scratchpad);
  if (status == dnnl_success) status = dnnl_memory_set_data_handle(op->user_dst, dst);
  dnnl_memory_t src_memory = op->user_src, dst_memory = op->user_dst;
  if (status == dnnl_success && op->src_reorder != NULL) {
    status = dnnl_kernel_run_reorder(op->src_reorder, op->stream, op->user_src, op->src);
    src_memory = op->src;
  }
  if (op->dst_reorder != NULL) dst_memory = op->dst;
  dnnl_exec_arg_t args[10] = {{DNNL_ARG_SRC, src_memory}, {DNNL_ARG_DST, dst_memory}};
  int nargs = 2;
  for (int i = 0; i < op->num_extras && status == dnnl_success; ++i) {
    if (extras[i] == NULL) return DNNL_KERNEL_BAD_ARGUMENTS;
    status = dnnl_memory_set_data_handle(op->extras[i], (void*)extras[i]);
    args[nargs++] = (dnnl_exec_arg_t){op->extra_args[i], op->extras[i]};
  }
  if (status == dnnl_success && op->binary_op) {
    if (residual == NULL) return DNNL_KERNEL_BAD_ARGUMENTS;
    status = dnnl_memory_set_data_handle(op->user_residual, (void*)residual);
    args[nargs++] = (dnnl_exec_arg_t){DNNL_ARG_SRC_1, op->user_residual};
  } else if (status == dnnl_success && op->has_sum && op->binary_residual) {
    status = dnnl_memory_set_data_handle(op->user_residual, (void*)residual);
    args[nargs++] =
        (dnnl_exec_arg_t){DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1, op->user_residual};
  } else if (status == dnnl_success && op->has_sum && op->sum_reorder != NULL) {
    status = dnnl_memory_set_data_handle(op->user_residual, (void*)residual);
    if (status == dnnl_success)
      status = dnnl_kernel_run_reorder(op->sum_reorder, op->stream, op->user_residual, op->dst);
  } else if (op->has_sum && residual != dst) {
    memmove(dst, residual, op->dst_bytes);
  }
  if (status != dnnl_success) return DNNL_KERNEL_STATUS_BASE + (int32_t)status;
  if (op->weights != NULL) args[nargs++] = (dnnl_exec_arg_t){DNNL_ARG_WEIGHTS, op->weights};
  if (op->has_bias) args[nargs++] = (dnnl_exec_arg_t){DNNL_ARG_BIAS, op->bias};
  if (op->scratchpad != NULL)
    args[nargs++] = (dnnl_exec_arg_t){DNNL_ARG_SCRATCHPAD, op->scratchpad};
  status = dnnl_primitive_execute(op->primitive, op->stream, nargs, args);
  if (status == dnnl_success && op->dst_reorder != NULL)
    status = dnnl_kernel_run_reorder(op->dst_reorder, op->stream, op->dst, op->user_dst);
  if (status == dnnl_success) status = dnnl_stream_wait(op->stream);
  return status == dnnl_success ? 0 : DNNL_KERNEL_STATUS_BASE + (int32_t)status;
}

static int32_t dnnl_kernel_execute_with(dnnl_kernel_op* op, const float* src, const float* residual,
                                        float* dst, void* scratchpad, const float* const* extras) {
  if (op == NULL) return DNNL_KERNEL_BAD_ARGUMENTS;
  int threads = dnnl_kernel_enter(op);
  int32_t result = dnnl_kernel_run(op, src, residual, dst, scratchpad, extras);
  dnnl_kernel_leave(threads);
  return result;
}

static int32_t dnnl_kernel_execute(dnnl_kernel_op* op, const float* src, const float* residual,
                                   float* dst, void* scratchpad) {
  return dnnl_kernel_execute_with(op, src, residual, dst, scratchpad, NULL);
}

// A new op in `slot` with its engine, stream, and the attributes every primitive gets: a
// user-managed scratchpad and the post-ops (the residual's sum or binary add, when it is
// read from `binary_residual`; then the eltwise).
static dnnl_status_t dnnl_kernel_new_op(void* slot, dnnl_kernel_op** made,
                                        dnnl_primitive_attr_t* attr, int64_t has_bias,
                                        int64_t has_sum, const dnnl_memory_desc_t* binary_residual,
                                        int64_t eltwise, float alpha, float beta, int64_t eltwise2,
                                        float alpha2, float beta2) {
  dnnl_kernel_op* op = (dnnl_kernel_op*)calloc(1, sizeof(dnnl_kernel_op));
  if (op == NULL) return dnnl_out_of_memory;
  *made = op;
  *(dnnl_kernel_op**)slot = op;
  op->has_bias = has_bias != 0;
  op->has_sum = has_sum != 0;
  op->binary_residual = has_sum != 0 && binary_residual != NULL;
  dnnl_status_t status = dnnl_engine_create(&op->engine, dnnl_cpu, 0);
  if (status == dnnl_success)
    status = dnnl_stream_create(&op->stream, op->engine, dnnl_stream_default_flags);
  if (status != dnnl_success) return status;
  status = dnnl_primitive_attr_create(attr);
  if (status != dnnl_success) return status;
  dnnl_post_ops_t post_ops = NULL;
  status = dnnl_primitive_attr_set_scratchpad_mode(*attr, dnnl_scratchpad_mode_user);
  if (status == dnnl_success) status = dnnl_post_ops_create(&post_ops);
  if (status == dnnl_success && op->binary_residual)
    status = dnnl_post_ops_append_binary(post_ops, dnnl_binary_add, binary_residual);
  else if (status == dnnl_success && has_sum)
    status = dnnl_post_ops_append_sum(post_ops, 1.0f);
  if (status == dnnl_success && eltwise != 0)
    status = dnnl_post_ops_append_eltwise(post_ops, 1.0f, (dnnl_alg_kind_t)eltwise, alpha, beta);
  if (status == dnnl_success && eltwise2 != 0)
    status = dnnl_post_ops_append_eltwise(post_ops, 1.0f, (dnnl_alg_kind_t)eltwise2, alpha2, beta2);
  if (status == dnnl_success) status = dnnl_primitive_attr_set_post_ops(*attr, post_ops);
  if (post_ops != NULL) dnnl_post_ops_destroy(post_ops);
  return status;
}

// oneDNN's instruction sets, in order: an implementation named "<kind>:<isa>" uses no newer
// one than the rank of <isa>; "any" (plain C++) none; a name not here (jit:uni, gemm:jit)
// the newest the CPU has. The target attribute max_isa is given as such a rank, 0 for no
// limit (backends/dnnl/primitive.cc ranks the same names).
static int64_t dnnl_kernel_isa_rank(const char* implementation) {
  static const char* const isas[] = {"sse41",
                                     "avx",
                                     "avx2",
                                     "avx2_vnni",
                                     "avx512_core",
                                     "avx512_core_vnni",
                                     "avx512_core_bf16",
                                     "avx512_core_amx"};
  const char* isa = strrchr(implementation, ':');
  isa = isa != NULL ? isa + 1 : implementation;
  if (strcmp(isa, "any") == 0) return 0;
  for (size_t i = 0; i < sizeof isas / sizeof isas[0]; ++i)
    if (strcmp(isa, isas[i]) == 0) return (int64_t)i + 1;
  return INT64_MAX;
}

// The first of oneDNN's implementations of `desc` (in its order of preference) whose
// instruction set is within `max_isa`.
static dnnl_status_t dnnl_kernel_first_within(dnnl_primitive_desc_t* pd, const_dnnl_op_desc_t desc,
                                              const_dnnl_primitive_attr_t attr,
                                              dnnl_engine_t engine, int64_t max_isa) {
  if (max_isa == 0) return dnnl_primitive_desc_create(pd, desc, attr, engine, NULL);
  dnnl_primitive_desc_iterator_t it = NULL;
  dnnl_status_t status = dnnl_primitive_desc_iterator_create(&it, desc, attr, engine, NULL);
  while (status == dnnl_success) {
    dnnl_primitive_desc_t candidate = dnnl_primitive_desc_iterator_fetch(it);
    const char* implementation = "";
    if (candidate == NULL) {
      status = dnnl_runtime_error;
      break;
    }
    dnnl_primitive_desc_query(candidate, dnnl_query_impl_info_str, 0, &implementation);
    if (dnnl_kernel_isa_rank(implementation) <= max_isa) {
      *pd = candidate;
      break;
    }
    dnnl_primitive_desc_destroy(candidate);
    status = dnnl_primitive_desc_iterator_next(it);
  }
  if (it != NULL) dnnl_primitive_desc_iterator_destroy(it);
  return status == dnnl_iterator_ends ? dnnl_unimplemented : status;
}

// The primitive descriptor of `desc` with `attr` (destroyed here), when `status`, that of
// the steps before, is a success; then the rest of the init. On failure the slot's op is
// released.
static int32_t dnnl_kernel_create(void* slot, dnnl_kernel_op* op, dnnl_primitive_attr_t attr,
                                  dnnl_status_t status, const_dnnl_op_desc_t desc,
                                  const dnnl_memory_desc_t* user_src_md,
                                  const dnnl_memory_desc_t* user_weights_md,
                                  const dnnl_memory_desc_t* bias_md,
                                  const dnnl_memory_desc_t* user_dst_md, const float* weights,
                                  const float* bias, int64_t max_isa, int64_t scratchpad_bytes) {
  dnnl_primitive_desc_t pd = NULL;
  int threads = 0;
  if (status == dnnl_success) {
    size_t bytes = dnnl_memory_desc_get_size(user_src_md) + dnnl_memory_desc_get_size(user_dst_md);
    if (user_weights_md != NULL) bytes += dnnl_memory_desc_get_size(user_weights_md);
    op->one_thread = bytes < DNNL_KERNEL_ONE_THREAD_BYTES;
    threads = dnnl_kernel_enter(op);
    status = dnnl_kernel_first_within(&pd, desc, attr, op->engine, max_isa);
  }
  if (attr != NULL) dnnl_primitive_attr_destroy(attr);
  int32_t result = status == dnnl_success
                       ? dnnl_kernel_finish_init(op, pd, user_src_md, user_weights_md, bias_md,
                                                 user_dst_md, weights, bias, scratchpad_bytes, slot)
                       : DNNL_KERNEL_STATUS_BASE + (int32_t)status;
  dnnl_kernel_leave(threads);
  if (status != dnnl_success && op != NULL) dnnl_kernel_release(slot);
  return result;
}

static dnnl_format_tag_t dnnl_kernel_plain_tag(int ndims) {
  static const dnnl_format_tag_t tags[] = {
      dnnl_format_tag_undef, dnnl_a, dnnl_ab, dnnl_abc, dnnl_abcd, dnnl_abcde, dnnl_abcdef};
  return ndims >= 1 && ndims <= 6 ? tags[ndims] : dnnl_format_tag_undef;
}

// The data layout of `ndims` dimensions (batch, channels, spatial...): plain (0); channels
// innermost (1: NWC, NHWC, NDHWC); or blocked by 16 channels (2: nCw16c, nChw16c, nCdhw16c,
// Winograd's own). Data without spatial dimensions is plain.
static dnnl_format_tag_t dnnl_kernel_data_tag(int ndims, int64_t layout) {
  static const dnnl_format_tag_t last[] = {dnnl_acb, dnnl_acdb, dnnl_acdeb};
  static const dnnl_format_tag_t blocked[] = {dnnl_aBc16b, dnnl_aBcd16b, dnnl_aBcde16b};
  if (layout == 0 || ndims < 3) return dnnl_kernel_plain_tag(ndims);
  if (ndims > 5 || layout > 2) return dnnl_format_tag_undef;
  return layout == 1 ? last[ndims - 3] : blocked[ndims - 3];
}

// An extra memory of `md` for the executor's argument `arg` (its data given at each run).
static dnnl_status_t dnnl_kernel_add_extra(dnnl_kernel_op* op, int arg,
                                           const dnnl_memory_desc_t* md) {
  dnnl_status_t status =
      dnnl_memory_create(&op->extras[op->num_extras], md, op->engine, DNNL_MEMORY_NONE);
  if (status == dnnl_success) op->extra_args[op->num_extras++] = arg;
  return status;
}

// ---- convolution: 1 to 3 spatial dimensions, grouped, dilated, strided ----

#define DNNL_KERNEL_CONV_PARAMS                                                                    \
  void *slot, const float *src, const float *weights, const float *bias, const float *residual,    \
      float *dst, int64_t rank, int64_t batch, int64_t in_channels, int64_t out_channels,          \
      int64_t groups, int64_t in0, int64_t in1, int64_t in2, int64_t k0, int64_t k1, int64_t k2,   \
      int64_t out0, int64_t out1, int64_t out2, int64_t stride0, int64_t stride1, int64_t stride2, \
      int64_t dilation0, int64_t dilation1, int64_t dilation2, int64_t pad_begin0,                 \
      int64_t pad_begin1, int64_t pad_begin2, int64_t pad_end0, int64_t pad_end1,                  \
      int64_t pad_end2, int64_t algorithm, int64_t src_layout, int64_t dst_layout,                 \
      int64_t has_sum, int64_t eltwise, float alpha, float beta, int64_t eltwise2, float alpha2,   \
      float beta2, int64_t bf16, int64_t max_isa, int64_t scratchpad_bytes, void *scratchpad

int32_t dnnl_kernel_conv_init(DNNL_KERNEL_CONV_PARAMS);
int32_t dnnl_kernel_conv_init(DNNL_KERNEL_CONV_PARAMS) {
  (void)src, (void)residual, (void)dst, (void)scratchpad;
  if (rank < 1 || rank > 3 || batch < 1 || groups < 1 || in_channels % groups != 0 ||
      out_channels % groups != 0 || weights == NULL)
    return DNNL_KERNEL_BAD_ARGUMENTS;
  const int64_t in[3] = {in0, in1, in2}, k[3] = {k0, k1, k2}, out[3] = {out0, out1, out2};
  const dnnl_dims_t strides = {stride0, stride1, stride2};
  const dnnl_dims_t dilations = {dilation0 - 1, dilation1 - 1, dilation2 - 1};
  const dnnl_dims_t pad_begin = {pad_begin0, pad_begin1, pad_begin2};
  const dnnl_dims_t pad_end = {pad_end0, pad_end1, pad_end2};
  const dnnl_dims_t bias_dims = {out_channels};
  const int ndims = 2 + (int)rank;
  dnnl_dims_t src_dims = {batch, in_channels}, dst_dims = {batch, out_channels};
  // Grouped weights are G x O/G x I/G x K...: the same bytes as O x I/G x K.
  dnnl_dims_t weights_dims = {out_channels, in_channels / groups};
  int weights_ndims = ndims;
  if (groups > 1) {
    weights_dims[0] = groups;
    weights_dims[1] = out_channels / groups;
    weights_dims[2] = in_channels / groups;
    weights_ndims = ndims + 1;
  }
  for (int i = 0; i < rank; ++i) {
    src_dims[2 + i] = in[i];
    dst_dims[2 + i] = out[i];
    weights_dims[weights_ndims - (int)rank + i] = k[i];
  }

  // Data in the caller's layout is computed in place where the algorithm takes it (Winograd
  // only blocked, direct convolutions channels last too); plain data in the layout oneDNN
  // likes, reordered. A residual is read in place by a binary add where the result is
  // computed in place, but by Winograd, which has no binary post-op: it sums what the
  // destination holds.
  const int winograd = algorithm == dnnl_convolution_winograd;
  const int src_in_place = src_layout == 2 || (src_layout == 1 && !winograd);
  const int dst_in_place = dst_layout == 2 || (dst_layout == 1 && !winograd);
  dnnl_kernel_op* op = NULL;
  dnnl_primitive_attr_t attr = NULL;
  dnnl_memory_desc_t user_src, user_weights, user_dst, bias_md, any_src, any_weights, any_dst;
  dnnl_status_t status = dnnl_memory_desc_init_by_tag(&user_dst, ndims, dst_dims, dnnl_f32,
                                                      dnnl_kernel_data_tag(ndims, dst_layout));
  if (status == dnnl_success)
    status = dnnl_kernel_new_op(slot, &op, &attr, bias != NULL, has_sum,
                                dst_in_place && !winograd ? &user_dst : NULL, eltwise, alpha, beta,
                                eltwise2, alpha2, beta2);
  if (status == dnnl_success)
    status = dnnl_memory_desc_init_by_tag(&user_src, ndims, src_dims, dnnl_f32,
                                          dnnl_kernel_data_tag(ndims, src_layout));
  if (status == dnnl_success)
    status = dnnl_memory_desc_init_by_tag(&user_weights, weights_ndims, weights_dims, dnnl_f32,
                                          dnnl_kernel_plain_tag(weights_ndims));
  if (status == dnnl_success)
    status = dnnl_memory_desc_init_by_tag(&bias_md, 1, bias_dims, dnnl_f32, dnnl_a);
  // With bf16, the data and the weights are multiplied in bfloat16 (the data reordered into
  // it at each run, the weights once), summed and returned in f32.
  const dnnl_data_type_t multiplied = bf16 ? dnnl_bf16 : dnnl_f32;
  if (status == dnnl_success)
    status = dnnl_memory_desc_init_by_tag(
        &any_src, ndims, src_dims, multiplied,
        src_in_place ? dnnl_kernel_data_tag(ndims, src_layout) : dnnl_format_tag_any);
  if (status == dnnl_success)
    status = dnnl_memory_desc_init_by_tag(
        &any_dst, ndims, dst_dims, dnnl_f32,
        dst_in_place ? dnnl_kernel_data_tag(ndims, dst_layout) : dnnl_format_tag_any);
  if (status == dnnl_success)
    status = dnnl_memory_desc_init_by_tag(&any_weights, weights_ndims, weights_dims, multiplied,
                                          dnnl_format_tag_any);
  dnnl_convolution_desc_t desc;
  if (status == dnnl_success)
    status = dnnl_dilated_convolution_forward_desc_init(
        &desc, dnnl_forward_inference, (dnnl_alg_kind_t)algorithm, &any_src, &any_weights,
        bias != NULL ? &bias_md : NULL, &any_dst, strides, dilations, pad_begin, pad_end);
  return dnnl_kernel_create(slot, op, attr, status, &desc, &user_src, &user_weights, &bias_md,
                            &user_dst, weights, bias, max_isa, scratchpad_bytes);
}

int32_t dnnl_kernel_conv(DNNL_KERNEL_CONV_PARAMS);
int32_t dnnl_kernel_conv(DNNL_KERNEL_CONV_PARAMS) {
  (void)weights, (void)bias, (void)rank, (void)batch, (void)in_channels, (void)out_channels,
      (void)groups, (void)in0, (void)in1, (void)in2, (void)k0, (void)k1, (void)k2, (void)out0,
      (void)out1, (void)out2, (void)stride0, (void)stride1, (void)stride2, (void)dilation0,
      (void)dilation1, (void)dilation2, (void)pad_begin0, (void)pad_begin1, (void)pad_begin2,
      (void)pad_end0, (void)pad_end1, (void)pad_end2, (void)algorithm, (void)src_layout,
      (void)dst_layout, (void)has_sum, (void)eltwise, (void)alpha, (void)beta, (void)eltwise2,
      (void)alpha2, (void)beta2, (void)bf16, (void)max_isa, (void)scratchpad_bytes;
  return dnnl_kernel_execute(*(dnnl_kernel_op**)slot, src, residual, dst, scratchpad);
}

// ---- inner product: [batch, in] x [out, in]^T (nn.dense), or x [in, out] (nn.matmul's
// weights: weights_in_out) ----

#define DNNL_KERNEL_DENSE_PARAMS                                                                \
  void *slot, const float *src, const float *weights, const float *bias, const float *residual, \
      float *dst, int64_t batch, int64_t in_features, int64_t out_features,                     \
      int64_t weights_in_out, int64_t has_sum, int64_t eltwise, float alpha, float beta,        \
      int64_t eltwise2, float alpha2, float beta2, int64_t bf16, int64_t max_isa,               \
      int64_t scratchpad_bytes, void *scratchpad

int32_t dnnl_kernel_dense_init(DNNL_KERNEL_DENSE_PARAMS);
int32_t dnnl_kernel_dense_init(DNNL_KERNEL_DENSE_PARAMS) {
  (void)src, (void)residual, (void)dst, (void)scratchpad;
  if (batch < 1 || in_features < 1 || out_features < 1 || weights == NULL)
    return DNNL_KERNEL_BAD_ARGUMENTS;
  const dnnl_dims_t src_dims = {batch, in_features}, dst_dims = {batch, out_features};
  const dnnl_dims_t weights_dims = {out_features, in_features};
  const dnnl_dims_t bias_dims = {out_features};
  dnnl_kernel_op* op = NULL;
  dnnl_primitive_attr_t attr = NULL;
  dnnl_status_t status = dnnl_kernel_new_op(slot, &op, &attr, bias != NULL, has_sum, NULL, eltwise,
                                            alpha, beta, eltwise2, alpha2, beta2);
  // With bf16, as for a convolution.
  const dnnl_data_type_t multiplied = bf16 ? dnnl_bf16 : dnnl_f32;
  dnnl_memory_desc_t user_src, user_weights, user_dst, bias_md, any_weights, product_src;
  if (status == dnnl_success)
    status = dnnl_memory_desc_init_by_tag(&user_src, 2, src_dims, dnnl_f32, dnnl_ab);
  if (status == dnnl_success)
    status = dnnl_memory_desc_init_by_tag(&product_src, 2, src_dims, multiplied, dnnl_ab);
  if (status == dnnl_success)
    status = dnnl_memory_desc_init_by_tag(&user_dst, 2, dst_dims, dnnl_f32, dnnl_ab);
  if (status == dnnl_success)
    status = dnnl_memory_desc_init_by_tag(&user_weights, 2, weights_dims, dnnl_f32,
                                          weights_in_out ? dnnl_ba : dnnl_ab);
  if (status == dnnl_success)
    status = dnnl_memory_desc_init_by_tag(&any_weights, 2, weights_dims, multiplied,
                                          dnnl_format_tag_any);
  if (status == dnnl_success)
    status = dnnl_memory_desc_init_by_tag(&bias_md, 1, bias_dims, dnnl_f32, dnnl_a);
  dnnl_inner_product_desc_t desc;
  if (status == dnnl_success)
    status = dnnl_inner_product_forward_desc_init(&desc, dnnl_forward_inference, &product_src,
                                                  &any_weights, bias != NULL ? &bias_md : NULL,
                                                  &user_dst);
  return dnnl_kernel_create(slot, op, attr, status, &desc, &user_src, &user_weights, &bias_md,
                            &user_dst, weights, bias, max_isa, scratchpad_bytes);
}

int32_t dnnl_kernel_dense(DNNL_KERNEL_DENSE_PARAMS);
int32_t dnnl_kernel_dense(DNNL_KERNEL_DENSE_PARAMS) {
  (void)weights, (void)bias, (void)batch, (void)in_features, (void)out_features,
      (void)weights_in_out, (void)has_sum, (void)eltwise, (void)alpha, (void)beta, (void)eltwise2,
      (void)alpha2, (void)beta2, (void)bf16, (void)max_isa, (void)scratchpad_bytes;
  return dnnl_kernel_execute(*(dnnl_kernel_op**)slot, src, residual, dst, scratchpad);
}

// ---- matmul of two computed tensors: src [batch..., M, K] x weights [batch..., K, N] ->
// dst [batch..., M, N], `rank` dimensions (batch ones broadcast where 1); src and weights
// read with the given strides (a transpose read in place), dst plain ----

#define DNNL_KERNEL_MATMUL_PARAMS                                                                \
  void *slot, const float *src, const float *weights, const float *bias, const float *residual,  \
      float *dst, int64_t rank, int64_t sd0, int64_t sd1, int64_t sd2, int64_t sd3, int64_t sd4, \
      int64_t ss0, int64_t ss1, int64_t ss2, int64_t ss3, int64_t ss4, int64_t wd0, int64_t wd1, \
      int64_t wd2, int64_t wd3, int64_t wd4, int64_t ws0, int64_t ws1, int64_t ws2, int64_t ws3, \
      int64_t ws4, int64_t dd0, int64_t dd1, int64_t dd2, int64_t dd3, int64_t dd4,              \
      int64_t has_sum, int64_t eltwise, float alpha, float beta, int64_t eltwise2, float alpha2, \
      float beta2, int64_t max_isa, int64_t scratchpad_bytes, void *scratchpad

int32_t dnnl_kernel_matmul_init(DNNL_KERNEL_MATMUL_PARAMS);
int32_t dnnl_kernel_matmul_init(DNNL_KERNEL_MATMUL_PARAMS) {
  (void)src, (void)weights, (void)residual, (void)dst, (void)scratchpad;
  if (rank < 2 || rank > 5) return DNNL_KERNEL_BAD_ARGUMENTS;
  const dnnl_dims_t src_dims = {sd0, sd1, sd2, sd3, sd4}, src_strides = {ss0, ss1, ss2, ss3, ss4};
  const dnnl_dims_t weights_dims = {wd0, wd1, wd2, wd3, wd4};
  const dnnl_dims_t weights_strides = {ws0, ws1, ws2, ws3, ws4};
  const dnnl_dims_t dst_dims = {dd0, dd1, dd2, dd3, dd4};
  const int ndims = (int)rank;
  dnnl_dims_t bias_dims = {1, 1, 1, 1, 1};
  bias_dims[ndims - 1] = dst_dims[ndims - 1];
  // The result is plain, so a residual is read where it is, by a binary add post-op.
  dnnl_kernel_op* op = NULL;
  dnnl_primitive_attr_t attr = NULL;
  dnnl_memory_desc_t user_src, weights_md, user_dst, bias_md;
  dnnl_status_t status = dnnl_memory_desc_init_by_tag(&user_dst, ndims, dst_dims, dnnl_f32,
                                                      dnnl_kernel_plain_tag(ndims));
  if (status == dnnl_success)
    status = dnnl_kernel_new_op(slot, &op, &attr, bias != NULL, has_sum, &user_dst, eltwise, alpha,
                                beta, eltwise2, alpha2, beta2);
  if (status == dnnl_success)
    status = dnnl_memory_desc_init_by_strides(&user_src, ndims, src_dims, dnnl_f32, src_strides);
  if (status == dnnl_success)
    status = dnnl_memory_desc_init_by_strides(&weights_md, ndims, weights_dims, dnnl_f32,
                                              weights_strides);
  if (status == dnnl_success)
    status = dnnl_memory_desc_init_by_tag(&bias_md, ndims, bias_dims, dnnl_f32,
                                          dnnl_kernel_plain_tag(ndims));
  // The weights are data here, given at each run.
  if (status == dnnl_success) status = dnnl_kernel_add_extra(op, DNNL_ARG_WEIGHTS, &weights_md);
  dnnl_matmul_desc_t desc;
  if (status == dnnl_success)
    status = dnnl_matmul_desc_init(&desc, &user_src, &weights_md, bias != NULL ? &bias_md : NULL,
                                   &user_dst);
  return dnnl_kernel_create(slot, op, attr, status, &desc, &user_src, NULL, &bias_md, &user_dst,
                            NULL, bias, max_isa, scratchpad_bytes);
}

int32_t dnnl_kernel_matmul(DNNL_KERNEL_MATMUL_PARAMS);
int32_t dnnl_kernel_matmul(DNNL_KERNEL_MATMUL_PARAMS) {
  (void)bias, (void)rank, (void)sd0, (void)sd1, (void)sd2, (void)sd3, (void)sd4, (void)ss0,
      (void)ss1, (void)ss2, (void)ss3, (void)ss4, (void)wd0, (void)wd1, (void)wd2, (void)wd3,
      (void)wd4, (void)ws0, (void)ws1, (void)ws2, (void)ws3, (void)ws4, (void)dd0, (void)dd1,
      (void)dd2, (void)dd3, (void)dd4, (void)has_sum, (void)eltwise, (void)alpha, (void)beta,
      (void)eltwise2, (void)alpha2, (void)beta2, (void)max_isa, (void)scratchpad_bytes;
  const float* extras[] = {weights};
  return dnnl_kernel_execute_with(*(dnnl_kernel_op**)slot, src, residual, dst, scratchpad, extras);
}

// ---- concatenation of `inputs` tensors of `rank` dimensions along `axis`, copied by rows:
// srcs and sizes are arrays of `inputs` (each operand, and its size along the axis), d0.. the
// result's dims; operands and result share one layout, plain or channels last. No oneDNN
// primitive: 2.6's concat took 6 to 87 us at ShuffleNet's sizes, where these copies
// take 1 to 10 ----

#define DNNL_KERNEL_CONCAT_PARAMS                                                            \
  void *slot, void *srcs, float *dst, int64_t inputs, void *sizes, int64_t rank, int64_t d0, \
      int64_t d1, int64_t d2, int64_t d3, int64_t d4, int64_t axis, int64_t src_layout,      \
      int64_t dst_layout

// Nothing to make: the copy needs no state (the slot stays null).
int32_t dnnl_kernel_concat_init(DNNL_KERNEL_CONCAT_PARAMS);
int32_t dnnl_kernel_concat_init(DNNL_KERNEL_CONCAT_PARAMS) {
  (void)slot, (void)srcs, (void)dst, (void)inputs, (void)sizes, (void)rank, (void)d0, (void)d1,
      (void)d2, (void)d3, (void)d4, (void)axis, (void)src_layout, (void)dst_layout;
  return 0;
}

int32_t dnnl_kernel_concat(DNNL_KERNEL_CONCAT_PARAMS);
int32_t dnnl_kernel_concat(DNNL_KERNEL_CONCAT_PARAMS) {
  (void)slot;
  void* const* data = (void* const*)srcs;
  const int64_t* size = (const int64_t*)sizes;
  if (data == NULL || size == NULL || dst == NULL || rank < 1 || rank > 5 || axis < 0 ||
      axis >= rank || inputs < 1 || src_layout != dst_layout || src_layout > 1)
    return DNNL_KERNEL_BAD_ARGUMENTS;
  // The dimensions in memory order: channels last puts axis 1 after the spatial ones.
  const int64_t dims[5] = {d0, d1, d2, d3, d4};
  int64_t stored[5];
  int64_t at = axis;
  for (int64_t i = 0; i < rank; ++i) stored[i] = dims[i];
  if (src_layout && rank >= 3) {
    for (int64_t i = 2; i < rank; ++i) stored[i - 1] = dims[i];
    stored[rank - 1] = dims[1];
    at = axis == 0 ? 0 : axis == 1 ? rank - 1 : axis - 1;
  }
  // Each of the `outer` rows of the result is the operands' rows one after the other.
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < at; ++i) outer *= stored[i];
  for (int64_t i = at + 1; i < rank; ++i) inner *= stored[i];
  const int64_t row = stored[at] * inner;
  int64_t offset = 0;
  for (int64_t k = 0; k < inputs; ++k) {
    const float* src = (const float*)data[k];
    const int64_t part = size[k] * inner;
    if (src == NULL || size[k] < 0 || offset + part > row) return DNNL_KERNEL_BAD_ARGUMENTS;
    for (int64_t o = 0; o < outer; ++o)
      memcpy(dst + o * row + offset, src + o * part, (size_t)part * sizeof(float));
    offset += part;
  }
  return offset == row ? 0 : DNNL_KERNEL_BAD_ARGUMENTS;
}

// ---- pooling: max, or average with or without the padding, 1 to 3 spatial dimensions ----

#define DNNL_KERNEL_POOL_PARAMS                                                                \
  void *slot, const float *src, float *dst, int64_t rank, int64_t batch, int64_t channels,     \
      int64_t in0, int64_t in1, int64_t in2, int64_t k0, int64_t k1, int64_t k2, int64_t out0, \
      int64_t out1, int64_t out2, int64_t stride0, int64_t stride1, int64_t stride2,           \
      int64_t dilation0, int64_t dilation1, int64_t dilation2, int64_t pad_begin0,             \
      int64_t pad_begin1, int64_t pad_begin2, int64_t pad_end0, int64_t pad_end1,              \
      int64_t pad_end2, int64_t algorithm, int64_t src_layout, int64_t dst_layout,             \
      int64_t max_isa, int64_t scratchpad_bytes, void *scratchpad

int32_t dnnl_kernel_pool_init(DNNL_KERNEL_POOL_PARAMS);
int32_t dnnl_kernel_pool_init(DNNL_KERNEL_POOL_PARAMS) {
  (void)src, (void)dst, (void)scratchpad;
  if (rank < 1 || rank > 3 || batch < 1 || channels < 1) return DNNL_KERNEL_BAD_ARGUMENTS;
  const int64_t in[3] = {in0, in1, in2}, out[3] = {out0, out1, out2};
  const dnnl_dims_t kernel = {k0, k1, k2}, strides = {stride0, stride1, stride2};
  const dnnl_dims_t dilations = {dilation0 - 1, dilation1 - 1, dilation2 - 1};
  const dnnl_dims_t pad_begin = {pad_begin0, pad_begin1, pad_begin2};
  const dnnl_dims_t pad_end = {pad_end0, pad_end1, pad_end2};
  const int ndims = 2 + (int)rank;
  dnnl_dims_t src_dims = {batch, channels}, dst_dims = {batch, channels};
  for (int i = 0; i < rank; ++i) {
    src_dims[2 + i] = in[i];
    dst_dims[2 + i] = out[i];
  }
  dnnl_kernel_op* op = NULL;
  dnnl_primitive_attr_t attr = NULL;
  dnnl_status_t status =
      dnnl_kernel_new_op(slot, &op, &attr, 0, 0, NULL, 0, 0.0f, 0.0f, 0, 0.0f, 0.0f);
  // The pooling computes in its data's layout; a result the caller lays out otherwise is
  // reordered.
  dnnl_memory_desc_t user_src, user_dst, pool_dst;
  if (status == dnnl_success)
    status = dnnl_memory_desc_init_by_tag(&user_src, ndims, src_dims, dnnl_f32,
                                          dnnl_kernel_data_tag(ndims, src_layout));
  if (status == dnnl_success)
    status = dnnl_memory_desc_init_by_tag(&user_dst, ndims, dst_dims, dnnl_f32,
                                          dnnl_kernel_data_tag(ndims, dst_layout));
  if (status == dnnl_success)
    status = dnnl_memory_desc_init_by_tag(&pool_dst, ndims, dst_dims, dnnl_f32,
                                          dnnl_kernel_data_tag(ndims, src_layout));
  dnnl_pooling_v2_desc_t desc;
  if (status == dnnl_success)
    status = dnnl_pooling_v2_forward_desc_init(&desc, dnnl_forward_inference,
                                               (dnnl_alg_kind_t)algorithm, &user_src, &pool_dst,
                                               strides, kernel, dilations, pad_begin, pad_end);
  return dnnl_kernel_create(slot, op, attr, status, &desc, &user_src, NULL, NULL, &user_dst, NULL,
                            NULL, max_isa, scratchpad_bytes);
}

int32_t dnnl_kernel_pool(DNNL_KERNEL_POOL_PARAMS);
int32_t dnnl_kernel_pool(DNNL_KERNEL_POOL_PARAMS) {
  (void)rank, (void)batch, (void)channels, (void)in0, (void)in1, (void)in2, (void)k0, (void)k1,
      (void)k2, (void)out0, (void)out1, (void)out2, (void)stride0, (void)stride1, (void)stride2,
      (void)dilation0, (void)dilation1, (void)dilation2, (void)pad_begin0, (void)pad_begin1,
      (void)pad_begin2, (void)pad_end0, (void)pad_end1, (void)pad_end2, (void)algorithm,
      (void)src_layout, (void)dst_layout, (void)max_isa, (void)scratchpad_bytes;
  return dnnl_kernel_execute(*(dnnl_kernel_op**)slot, src, NULL, dst, scratchpad);
}

// ---- softmax over the middle axis of [outer, axis, inner] (any tensor, viewed so) ----

#define DNNL_KERNEL_SOFTMAX_PARAMS                                                      \
  void *slot, const float *src, float *dst, int64_t outer, int64_t axis, int64_t inner, \
      int64_t log, int64_t max_isa, int64_t scratchpad_bytes, void *scratchpad

int32_t dnnl_kernel_softmax_init(DNNL_KERNEL_SOFTMAX_PARAMS);
int32_t dnnl_kernel_softmax_init(DNNL_KERNEL_SOFTMAX_PARAMS) {
  (void)src, (void)dst, (void)scratchpad;
  if (outer < 1 || axis < 1 || inner < 1) return DNNL_KERNEL_BAD_ARGUMENTS;
  const dnnl_dims_t dims = {outer, axis, inner};
  dnnl_kernel_op* op = NULL;
  dnnl_primitive_attr_t attr = NULL;
  dnnl_status_t status =
      dnnl_kernel_new_op(slot, &op, &attr, 0, 0, NULL, 0, 0.0f, 0.0f, 0, 0.0f, 0.0f);
  dnnl_memory_desc_t md;
  if (status == dnnl_success)
    status = dnnl_memory_desc_init_by_tag(&md, 3, dims, dnnl_f32, dnnl_abc);
  dnnl_softmax_v2_desc_t desc;
  if (status == dnnl_success)
    status = dnnl_softmax_v2_forward_desc_init(
        &desc, dnnl_forward_inference, log ? dnnl_softmax_log : dnnl_softmax_accurate, &md, &md, 1);
  return dnnl_kernel_create(slot, op, attr, status, &desc, &md, NULL, NULL, &md, NULL, NULL,
                            max_isa, scratchpad_bytes);
}

int32_t dnnl_kernel_softmax(DNNL_KERNEL_SOFTMAX_PARAMS);
int32_t dnnl_kernel_softmax(DNNL_KERNEL_SOFTMAX_PARAMS) {
  (void)outer, (void)axis, (void)inner, (void)log, (void)max_isa, (void)scratchpad_bytes;
  return dnnl_kernel_execute(*(dnnl_kernel_op**)slot, src, NULL, dst, scratchpad);
}

// ---- binary: src (any rank up to 5) op src1, broadcast to it (dimensions equal or 1) ----

#define DNNL_KERNEL_BINARY_PARAMS                                                         \
  void *slot, const float *src, const float *src1, float *dst, int64_t rank, int64_t d0,  \
      int64_t d1, int64_t d2, int64_t d3, int64_t d4, int64_t b0, int64_t b1, int64_t b2, \
      int64_t b3, int64_t b4, int64_t algorithm, int64_t src_layout, int64_t dst_layout,  \
      int64_t max_isa, int64_t scratchpad_bytes, void *scratchpad

int32_t dnnl_kernel_binary_init(DNNL_KERNEL_BINARY_PARAMS);
int32_t dnnl_kernel_binary_init(DNNL_KERNEL_BINARY_PARAMS) {
  (void)src, (void)src1, (void)dst, (void)scratchpad;
  if (rank < 1 || rank > 5) return DNNL_KERNEL_BAD_ARGUMENTS;
  const dnnl_dims_t dims = {d0, d1, d2, d3, d4}, broadcast = {b0, b1, b2, b3, b4};
  const int ndims = (int)rank;
  dnnl_kernel_op* op = NULL;
  dnnl_primitive_attr_t attr = NULL;
  dnnl_status_t status =
      dnnl_kernel_new_op(slot, &op, &attr, 0, 0, NULL, 0, 0.0f, 0.0f, 0, 0.0f, 0.0f);
  if (op != NULL) op->binary_op = 1;
  // Computed in the full operand's layout; a result the caller lays out otherwise is
  // reordered. The broadcast operand is plain.
  dnnl_memory_desc_t user_src, src1_md, user_dst, binary_dst;
  if (status == dnnl_success)
    status = dnnl_memory_desc_init_by_tag(&user_src, ndims, dims, dnnl_f32,
                                          dnnl_kernel_data_tag(ndims, src_layout));
  if (status == dnnl_success)
    status = dnnl_memory_desc_init_by_tag(&src1_md, ndims, broadcast, dnnl_f32,
                                          dnnl_kernel_plain_tag(ndims));
  if (status == dnnl_success)
    status = dnnl_memory_desc_init_by_tag(&user_dst, ndims, dims, dnnl_f32,
                                          dnnl_kernel_data_tag(ndims, dst_layout));
  if (status == dnnl_success)
    status = dnnl_memory_desc_init_by_tag(&binary_dst, ndims, dims, dnnl_f32,
                                          dnnl_kernel_data_tag(ndims, src_layout));
  if (status == dnnl_success)
    status = dnnl_memory_create(&op->user_residual, &src1_md, op->engine, DNNL_MEMORY_NONE);
  dnnl_binary_desc_t desc;
  if (status == dnnl_success)
    status =
        dnnl_binary_desc_init(&desc, (dnnl_alg_kind_t)algorithm, &user_src, &src1_md, &binary_dst);
  return dnnl_kernel_create(slot, op, attr, status, &desc, &user_src, NULL, NULL, &user_dst, NULL,
                            NULL, max_isa, scratchpad_bytes);
}

int32_t dnnl_kernel_binary(DNNL_KERNEL_BINARY_PARAMS);
int32_t dnnl_kernel_binary(DNNL_KERNEL_BINARY_PARAMS) {
  (void)rank, (void)d0, (void)d1, (void)d2, (void)d3, (void)d4, (void)b0, (void)b1, (void)b2,
      (void)b3, (void)b4, (void)algorithm, (void)src_layout, (void)dst_layout, (void)max_isa,
      (void)scratchpad_bytes;
  return dnnl_kernel_execute(*(dnnl_kernel_op**)slot, src, src1, dst, scratchpad);
}

// ---- batch normalization (inference: the given mean and variance, scale and shift), the
// channels along axis 1 of up to 5 dimensions; with relu, a relu of its result (oneDNN's
// fuse_norm_relu) ----

#define DNNL_KERNEL_BATCH_NORM_PARAMS                                                              \
  void *slot, const float *src, const float *scale, const float *shift, const float *mean,         \
      const float *variance, float *dst, int64_t rank, int64_t d0, int64_t d1, int64_t d2,         \
      int64_t d3, int64_t d4, float epsilon, int64_t src_layout, int64_t dst_layout, int64_t relu, \
      int64_t max_isa, int64_t scratchpad_bytes, void *scratchpad

int32_t dnnl_kernel_batch_norm_init(DNNL_KERNEL_BATCH_NORM_PARAMS);
int32_t dnnl_kernel_batch_norm_init(DNNL_KERNEL_BATCH_NORM_PARAMS) {
  (void)src, (void)scale, (void)shift, (void)mean, (void)variance, (void)dst, (void)scratchpad;
  if (rank < 2 || rank > 5) return DNNL_KERNEL_BAD_ARGUMENTS;
  const dnnl_dims_t dims = {d0, d1, d2, d3, d4}, channels = {d1};
  const int ndims = (int)rank;
  dnnl_kernel_op* op = NULL;
  dnnl_primitive_attr_t attr = NULL;
  dnnl_status_t status =
      dnnl_kernel_new_op(slot, &op, &attr, 0, 0, NULL, 0, 0.0f, 0.0f, 0, 0.0f, 0.0f);
  // Computed in the data's layout; a result the caller lays out otherwise is reordered.
  dnnl_memory_desc_t user_src, user_dst, per_channel;
  if (status == dnnl_success)
    status = dnnl_memory_desc_init_by_tag(&user_src, ndims, dims, dnnl_f32,
                                          dnnl_kernel_data_tag(ndims, src_layout));
  if (status == dnnl_success)
    status = dnnl_memory_desc_init_by_tag(&user_dst, ndims, dims, dnnl_f32,
                                          dnnl_kernel_data_tag(ndims, dst_layout));
  if (status == dnnl_success)
    status = dnnl_memory_desc_init_by_tag(&per_channel, 1, channels, dnnl_f32, dnnl_a);
  const int args[] = {DNNL_ARG_SCALE, DNNL_ARG_SHIFT, DNNL_ARG_MEAN, DNNL_ARG_VARIANCE};
  for (int i = 0; i < 4 && status == dnnl_success; ++i)
    status = dnnl_kernel_add_extra(op, args[i], &per_channel);
  dnnl_batch_normalization_desc_t desc;
  if (status == dnnl_success)
    status = dnnl_batch_normalization_forward_desc_init(
        &desc, dnnl_forward_inference, &user_src, epsilon,
        dnnl_use_global_stats | dnnl_use_scale | dnnl_use_shift | (relu ? dnnl_fuse_norm_relu : 0));
  return dnnl_kernel_create(slot, op, attr, status, &desc, &user_src, NULL, NULL, &user_dst, NULL,
                            NULL, max_isa, scratchpad_bytes);
}

int32_t dnnl_kernel_batch_norm(DNNL_KERNEL_BATCH_NORM_PARAMS);
int32_t dnnl_kernel_batch_norm(DNNL_KERNEL_BATCH_NORM_PARAMS) {
  (void)rank, (void)d0, (void)d1, (void)d2, (void)d3, (void)d4, (void)epsilon, (void)src_layout,
      (void)dst_layout, (void)relu, (void)max_isa, (void)scratchpad_bytes;
  const float* extras[] = {scale, shift, mean, variance};
  return dnnl_kernel_execute_with(*(dnnl_kernel_op**)slot, src, NULL, dst, scratchpad, extras);
}

// ---- layer normalization over the inner elements of [outer, inner], with a scale and
// (with has_shift) a shift of one value per inner element ----

#define DNNL_KERNEL_LAYER_NORM_PARAMS                                                              \
  void *slot, const float *src, const float *scale, const float *shift, float *dst, int64_t outer, \
      int64_t inner, int64_t has_shift, float epsilon, int64_t max_isa, int64_t scratchpad_bytes,  \
      void *scratchpad

int32_t dnnl_kernel_layer_norm_init(DNNL_KERNEL_LAYER_NORM_PARAMS);
int32_t dnnl_kernel_layer_norm_init(DNNL_KERNEL_LAYER_NORM_PARAMS) {
  (void)src, (void)scale, (void)shift, (void)dst, (void)scratchpad;
  if (outer < 1 || inner < 1) return DNNL_KERNEL_BAD_ARGUMENTS;
  const dnnl_dims_t dims = {outer, inner}, params = {inner};
  dnnl_kernel_op* op = NULL;
  dnnl_primitive_attr_t attr = NULL;
  dnnl_status_t status =
      dnnl_kernel_new_op(slot, &op, &attr, 0, 0, NULL, 0, 0.0f, 0.0f, 0, 0.0f, 0.0f);
  dnnl_memory_desc_t data, per_element;
  if (status == dnnl_success)
    status = dnnl_memory_desc_init_by_tag(&data, 2, dims, dnnl_f32, dnnl_ab);
  if (status == dnnl_success)
    status = dnnl_memory_desc_init_by_tag(&per_element, 1, params, dnnl_f32, dnnl_a);
  if (status == dnnl_success) status = dnnl_kernel_add_extra(op, DNNL_ARG_SCALE, &per_element);
  if (status == dnnl_success && has_shift)
    status = dnnl_kernel_add_extra(op, DNNL_ARG_SHIFT, &per_element);
  dnnl_layer_normalization_desc_t desc;
  if (status == dnnl_success)
    status = dnnl_layer_normalization_forward_desc_init(
        &desc, dnnl_forward_inference, &data, NULL, epsilon,
        dnnl_use_scale | (has_shift ? dnnl_use_shift : 0));
  return dnnl_kernel_create(slot, op, attr, status, &desc, &data, NULL, NULL, &data, NULL, NULL,
                            max_isa, scratchpad_bytes);
}

int32_t dnnl_kernel_layer_norm(DNNL_KERNEL_LAYER_NORM_PARAMS);
int32_t dnnl_kernel_layer_norm(DNNL_KERNEL_LAYER_NORM_PARAMS) {
  (void)outer, (void)inner, (void)has_shift, (void)epsilon, (void)max_isa, (void)scratchpad_bytes;
  const float* extras[] = {scale, shift};
  return dnnl_kernel_execute_with(*(dnnl_kernel_op**)slot, src, NULL, dst, scratchpad, extras);
}

// ---- eltwise: a unary op (oneDNN's algorithm, alpha, beta) over `elements` values ----

#define DNNL_KERNEL_ELTWISE_PARAMS                                                            \
  void *slot, const float *src, float *dst, int64_t elements, int64_t algorithm, float alpha, \
      float beta, int64_t max_isa, int64_t scratchpad_bytes, void *scratchpad

int32_t dnnl_kernel_eltwise_init(DNNL_KERNEL_ELTWISE_PARAMS);
int32_t dnnl_kernel_eltwise_init(DNNL_KERNEL_ELTWISE_PARAMS) {
  (void)src, (void)dst, (void)scratchpad;
  if (elements < 1) return DNNL_KERNEL_BAD_ARGUMENTS;
  const dnnl_dims_t dims = {elements};
  dnnl_kernel_op* op = NULL;
  dnnl_primitive_attr_t attr = NULL;
  dnnl_status_t status =
      dnnl_kernel_new_op(slot, &op, &attr, 0, 0, NULL, 0, 0.0f, 0.0f, 0, 0.0f, 0.0f);
  dnnl_memory_desc_t data;
  if (status == dnnl_success)
    status = dnnl_memory_desc_init_by_tag(&data, 1, dims, dnnl_f32, dnnl_a);
  dnnl_eltwise_desc_t desc;
  if (status == dnnl_success)
    status = dnnl_eltwise_forward_desc_init(&desc, dnnl_forward_inference,
                                            (dnnl_alg_kind_t)algorithm, &data, alpha, beta);
  return dnnl_kernel_create(slot, op, attr, status, &desc, &data, NULL, NULL, &data, NULL, NULL,
                            max_isa, scratchpad_bytes);
}

int32_t dnnl_kernel_eltwise(DNNL_KERNEL_ELTWISE_PARAMS);
int32_t dnnl_kernel_eltwise(DNNL_KERNEL_ELTWISE_PARAMS) {
  (void)elements, (void)algorithm, (void)alpha, (void)beta, (void)max_isa, (void)scratchpad_bytes;
  return dnnl_kernel_execute(*(dnnl_kernel_op**)slot, src, NULL, dst, scratchpad);
}
