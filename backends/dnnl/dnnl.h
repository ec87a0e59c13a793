// The dnnl backend's pieces, one file each (backends/dnnl/): oneDNN's primitives (Debian's
// libdnnl-dev) behind the UMA interface, the C of kernels/dnnl_ops.c calling them.
//
//   backend.cc      the Backend: target "dnnl --winograd=auto|on|off", patterns, codegen
//   patterns.cc     dnnl.conv, dnnl.dense (nn.dense, or nn.matmul by a constant), dnnl.matmul
//                   (nn.matmul of two computed tensors, either one maybe transposed): anchor →
//                   bias → residual add → activation;
//                   dnnl.concat, dnnl.pool, dnnl.softmax, dnnl.norm (batch, maybe then relu, and
//                   layer normalization), dnnl.binary (add, multiply, ... broadcasting one
//                   operand), dnnl.eltwise (a unary op): the op alone
//   epilogue.cc     what follows the anchor in a composite, as oneDNN's bias and post-ops
//   primitive.cc    the primitive oneDNN would make for a composite, and its implementation
//   calls.cc        each composite's lowering: one call of the kernel's entry point
//   layouts.cc      dnnl-layouts: channels-last data between the composites of a region
//   load_state.cc   dnnl-load-state: the calls' primitives created in the function's init
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "uma/graph/ir.h"
#include "uma/lower/composite_lowering.h"
#include "uma/pattern/pattern.h"
#include "uma/tir/ir.h"
#include "uma/uma/target.h"

namespace uma::backends::dnnl {

inline constexpr std::string_view kTargetName = "dnnl";
// The kernel's entry points (kernels/dnnl_ops.c): dnnl_kernel_<op> runs, dnnl_kernel_<op>_init
// creates, kReleaseName destroys what the init created.
inline constexpr std::string_view kEntryPrefix = "dnnl_kernel_";
inline constexpr std::string_view kInitSuffix = "_init";
inline constexpr std::string_view kReleaseName = "dnnl_kernel_release";
// The bytes of state each call gets: the pointer to its op (a cache line, so that two
// calls' slots never share one).
inline constexpr std::int64_t kSlotBytes = 64;

// What follows a composite's anchor (its convolution or dense): a bias of one value per
// output channel (the anchor's own third operand or an added constant), a residual of the
// result's shape added to it, and an activation as oneDNN's eltwise algorithm
// (dnnl_alg_kind_t, 0 for none) with its alpha and beta, and a second one after it, for an
// activation that is two (hard_sigmoid: linear, then clip to [0, 1]).
struct Epilogue {
  const Value* bias = nullptr;
  const Value* residual = nullptr;
  std::int64_t eltwise = 0;
  float alpha = 0;
  float beta = 0;
  std::int64_t eltwise2 = 0;
  float alpha2 = 0;
  float beta2 = 0;
};

// The unary ops dnnl.eltwise's pattern takes: those oneDNN's eltwise computes as uma does
// (the activations, abs, sqrt, exp, round, negative, reciprocal) and those it computes
// otherwise (log, nn.softplus). One of them, or power by a constant exponent, as the
// algorithm, alpha and beta of an Epilogue; an error, saying why, for another op and for
// what oneDNN would compute otherwise.
std::vector<std::string> eltwise_ops();
Expected<Epilogue> eltwise_of(const Node& node);

// The epilogue of `anchor` among the composite's `nodes`, whose output channels are along
// `channel_axis` of the anchor's result; an error says what oneDNN cannot fuse.
Expected<Epilogue> epilogue(const Node& anchor, const std::vector<const Node*>& nodes,
                            std::size_t channel_axis);

// How a composite's data (its first operand, its result and a residual, which shares the
// result's) is laid out in memory: plain (NCHW); channels last (NHWC: oneDNN's own layout for
// its direct convolutions on this kind of CPU); or blocked by 16 channels (nChw16c: the one
// its Winograd convolutions compute in, which its other primitives take too; only for
// channels a multiple of 16, where it has the plain layout's size). dnnl-layouts chooses them
// for the values that pass between the composites of one region and nowhere else. The
// composite function's attributes kSrcLayoutAttr and kDstLayoutAttr name them (layout_name);
// plain when absent. The kernel takes a layout as its number.
enum class Layout : std::int64_t { kPlain = 0, kChannelsLast = 1, kBlocked16 = 2 };
inline constexpr std::string_view kSrcLayoutAttr = "src_layout";
inline constexpr std::string_view kDstLayoutAttr = "dst_layout";
std::string_view layout_name(Layout layout);  // "plain", "channels_last", "blocked16"
struct Layouts {
  Layout src = Layout::kPlain, dst = Layout::kPlain;
};
Layouts layouts_of(const Function& composite);

// A convolution as the kernel takes it: sizes of up to three spatial dimensions (unused
// ones 1, or 0 for padding), oneDNN's algorithm, the epilogue, the data's layouts.
struct ConvCall {
  std::int64_t rank = 0, batch = 0, in_channels = 0, out_channels = 0, groups = 1;
  std::int64_t in[3] = {1, 1, 1}, kernel[3] = {1, 1, 1}, out[3] = {1, 1, 1};
  std::int64_t strides[3] = {1, 1, 1}, dilation[3] = {1, 1, 1};
  std::int64_t pad_begin[3] = {0, 0, 0}, pad_end[3] = {0, 0, 0};
  std::int64_t algorithm = 0;  // dnnl_alg_kind_t
  Epilogue epilogue;
  Layouts layouts;
  bool bf16 = false;  // the target's: data and weights multiplied in bfloat16
};

// nn.dense as an inner product: [batch, in_features] × [out_features, in_features]ᵀ; or
// nn.matmul by a constant matrix, whose weights are [in_features, out_features].
struct DenseCall {
  std::int64_t batch = 0, in_features = 0, out_features = 0;
  bool weights_in_out = false;
  Epilogue epilogue;
  bool bf16 = false;
};

// nn.matmul of two computed tensors as oneDNN's matmul: src [batch..., M, K] × weights
// [batch..., K, N] → dst [batch..., M, N], all of `rank` dimensions (batch ones 1 where an
// operand has fewer or broadcasts). An operand a transpose of the composite makes is read
// from the transpose's input, its strides permuted (no copy); dst is plain.
struct MatmulCall {
  std::int64_t rank = 0;
  std::int64_t src_dims[5] = {1, 1, 1, 1, 1}, src_strides[5] = {1, 1, 1, 1, 1};
  std::int64_t weights_dims[5] = {1, 1, 1, 1, 1}, weights_strides[5] = {1, 1, 1, 1, 1};
  std::int64_t dst_dims[5] = {1, 1, 1, 1, 1};
  Epilogue epilogue;
};

// A concatenation of tensors of `rank` dimensions (1 to 5) along `axis`: the result's
// dimensions, and each operand's size along the axis; its operands and result share one
// layout. The kernel copies it by rows itself: oneDNN 2.6's concat took 6 to 87 µs where the
// copy takes 1 to 10 (ShuffleNet's sizes, 2 threads).
struct ConcatCall {
  std::int64_t rank = 0, axis = 0;
  std::int64_t dims[5] = {1, 1, 1, 1, 1};
  std::vector<std::int64_t> sizes;
  Layouts layouts;  // of every operand, and of the result
};

// A pooling as the kernel takes it (unused spatial dimensions 1, or 0 for padding).
struct PoolCall {
  std::int64_t rank = 0, batch = 0, channels = 0;
  std::int64_t in[3] = {1, 1, 1}, kernel[3] = {1, 1, 1}, out[3] = {1, 1, 1};
  std::int64_t strides[3] = {1, 1, 1}, dilation[3] = {1, 1, 1};
  std::int64_t pad_begin[3] = {0, 0, 0}, pad_end[3] = {0, 0, 0};
  std::int64_t algorithm = 0;  // dnnl_alg_kind_t
  Layouts layouts;
};

// A softmax (or log-softmax) over the middle axis of the input viewed as [outer, axis, inner].
struct SoftmaxCall {
  std::int64_t outer = 1, axis = 1, inner = 1;
  bool log = false;
};

// A binary op (oneDNN's algorithm) of a tensor of up to 5 dimensions and one of the same
// rank broadcast to it (dimensions equal or 1); `swapped` when the broadcast one is the op's
// first operand (add, multiply, maximum and minimum commute).
struct BinaryCall {
  std::int64_t rank = 0;
  std::int64_t dims[5] = {1, 1, 1, 1, 1}, broadcast[5] = {1, 1, 1, 1, 1};
  std::int64_t algorithm = 0;  // dnnl_alg_kind_t
  bool swapped = false;
  Layouts layouts;  // of the full operand and the result
};

// A batch normalization of data of 2 to 5 dimensions, channels along axis 1 (each parameter
// one value per channel), maybe with a relu after it (oneDNN's fuse_norm_relu: DenseNet's
// pre-activations); or a layer normalization of the data viewed as [outer, inner], its
// scale and shift one value per inner element.
struct NormCall {
  bool layer = false;
  bool relu = false;
  std::int64_t rank = 0, dims[5] = {1, 1, 1, 1, 1};
  std::int64_t outer = 1, inner = 1;
  bool has_shift = true;
  float epsilon = 0;
  Layouts layouts;
};

// A unary elementwise op over `elements` values (any layout: it maps each alone).
struct EltwiseCall {
  std::int64_t elements = 0;
  Epilogue op;  // its eltwise, alpha and beta
};

// The calls of the composites whose nodes are `nodes` (a match's, or a composite function's),
// with the target's attributes; errors say what the kernel cannot run.
Expected<ConvCall> conv_call(const std::vector<const Node*>& nodes, const Target& target);
Expected<DenseCall> dense_call(const std::vector<const Node*>& nodes, const Target& target);
Expected<MatmulCall> matmul_call(const std::vector<const Node*>& nodes);
Expected<ConcatCall> concat_call(const std::vector<const Node*>& nodes);
Expected<PoolCall> pool_call(const std::vector<const Node*>& nodes);
Expected<SoftmaxCall> softmax_call(const std::vector<const Node*>& nodes);
Expected<BinaryCall> binary_call(const std::vector<const Node*>& nodes);
Expected<NormCall> norm_call(const std::vector<const Node*>& nodes);
Expected<EltwiseCall> eltwise_call(const std::vector<const Node*>& nodes);

// The primitive oneDNN makes for a call, as the kernel's init makes it: its implementation
// ("brg:avx512_core", "jit:avx512_core", ...), the first oneDNN has within the target's
// max_isa, and the scratchpad it needs, in bytes; an error when oneDNN has none. primitive.cc.
struct Primitive {
  std::string implementation;
  std::int64_t scratchpad_bytes = 0;
};
Expected<Primitive> conv_primitive(const ConvCall& call, const Target& target);
Expected<Primitive> dense_primitive(const DenseCall& call, const Target& target);
Expected<Primitive> matmul_primitive(const MatmulCall& call, const Target& target);
Expected<Primitive> pool_primitive(const PoolCall& call, const Target& target);
Expected<Primitive> softmax_primitive(const SoftmaxCall& call, const Target& target);
Expected<Primitive> binary_primitive(const BinaryCall& call, const Target& target);
Expected<Primitive> norm_primitive(const NormCall& call, const Target& target);
Expected<Primitive> eltwise_primitive(const EltwiseCall& call, const Target& target);
// Why oneDNN would not run the primitive well: it has none, or only its slow reference one.
Status check_implementation(std::string_view composite, const Expected<Primitive>& primitive);

// Patterns, longest first within each, and their predicates, which also reject what oneDNN
// would run with its slow reference implementation (patterns.cc).
PatternPtr conv_pattern();
PatternPtr dense_pattern();
PatternPtr matmul_pattern();
PatternPtr concat_pattern();
PatternPtr pool_pattern();
PatternPtr softmax_pattern();
PatternPtr binary_pattern();
PatternPtr norm_pattern();
PatternPtr eltwise_pattern();
Status check_conv(const Match& match, const Target& target);
Status check_dense(const Match& match, const Target& target);
Status check_matmul(const Match& match, const Target& target);
Status check_concat(const Match& match, const Target& target);
Status check_pool(const Match& match, const Target& target);
Status check_softmax(const Match& match, const Target& target);
Status check_binary(const Match& match, const Target& target);
Status check_norm(const Match& match, const Target& target);
Status check_eltwise(const Match& match, const Target& target);

// Each composite as one call of the kernel's entry point (calls.cc).
Expected<lower::ExternCall> lower_conv(const lower::CompositeOperands& operands,
                                       const Target& target);
Expected<lower::ExternCall> lower_dense(const lower::CompositeOperands& operands,
                                        const Target& target);
Expected<lower::ExternCall> lower_matmul(const lower::CompositeOperands& operands,
                                         const Target& target);
Expected<lower::ExternCall> lower_concat(const lower::CompositeOperands& operands,
                                         const Target& target);
Expected<lower::ExternCall> lower_pool(const lower::CompositeOperands& operands,
                                       const Target& target);
Expected<lower::ExternCall> lower_softmax(const lower::CompositeOperands& operands,
                                          const Target& target);
Expected<lower::ExternCall> lower_binary(const lower::CompositeOperands& operands,
                                         const Target& target);
Expected<lower::ExternCall> lower_norm(const lower::CompositeOperands& operands,
                                       const Target& target);
Expected<lower::ExternCall> lower_eltwise(const lower::CompositeOperands& operands,
                                          const Target& target);

// dnnl-layouts (POST_PARTITIONING_1): a value that one convolution, pooling, batch
// normalization, binary or eltwise op of a region makes and only others of the region read,
// as their data or residual, stays channels last between them, where oneDNN's primitives
// would otherwise reorder it from and to plain layout at every call; see layouts.cc.
Expected<bool> keep_layouts(Module& module, const Target& target);

// dnnl-load-state (TIR_PHASE_0): gives a function with calls of the kernel a state of one
// slot per call, passed first to each; its init calls each entry point's _init with the same
// arguments, its fini releases every slot (load_state.cc).
Expected<tir::PrimFunc> add_load_state(const tir::PrimFunc& func, const Target& target);

// The target's attributes together: winograd is auto, on or off; max_isa one of kIsas or
// "all".
Status check_target(const Target& target);

// oneDNN's instruction sets, oldest first (kernels/dnnl_ops.c ranks implementations by the
// same list), and the rank the kernel takes for the target's max_isa: 1 + its index, 0 for
// "all" (no limit).
inline constexpr std::string_view kIsas[] = {"sse41",
                                             "avx",
                                             "avx2",
                                             "avx2_vnni",
                                             "avx512_core",
                                             "avx512_core_vnni",
                                             "avx512_core_bf16",
                                             "avx512_core_amx"};
std::int64_t max_isa_rank(const Target& target);

}  // namespace uma::backends::dnnl
