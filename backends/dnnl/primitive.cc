// The primitive oneDNN makes for a composite, made at build time the way the kernel's init
// makes it at load time (kernels/dnnl_ops.c: the data in the call's layouts, weights in the
// layout oneDNN picks, the same post-ops, a user scratchpad), to ask which implementation
// oneDNN would run (the predicates refuse its slow reference one) and how large a scratchpad
// it needs (the lowering allocates it).
#include <fmt/format.h>
#include <oneapi/dnnl/dnnl.hpp>

#include <algorithm>
#include <limits>

#include "backends/dnnl/dnnl.h"

namespace uma::backends::dnnl {
namespace {

using ::dnnl::memory;
using Tag = memory::format_tag;
using Dt = memory::data_type;

memory::desc f32(memory::dims dims, Tag tag) { return memory::desc(dims, Dt::f32, tag); }

// The epilogue as post-ops, as the kernel makes them: a residual read from where it is by a
// binary add (its layout `binary_residual`) or added to the destination by a sum.
::dnnl::primitive_attr attributes(const Epilogue& epilogue,
                                  const memory::desc& binary_residual = memory::desc()) {
  ::dnnl::post_ops post_ops;
  if (epilogue.residual != nullptr && !binary_residual.is_zero())
    post_ops.append_binary(::dnnl::algorithm::binary_add, binary_residual);
  else if (epilogue.residual != nullptr)
    post_ops.append_sum(1.0f);
  if (epilogue.eltwise != 0)
    post_ops.append_eltwise(1.0f, static_cast<::dnnl::algorithm>(epilogue.eltwise), epilogue.alpha,
                            epilogue.beta);
  if (epilogue.eltwise2 != 0)
    post_ops.append_eltwise(1.0f, static_cast<::dnnl::algorithm>(epilogue.eltwise2),
                            epilogue.alpha2, epilogue.beta2);
  ::dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(::dnnl::scratchpad_mode::user);
  attr.set_post_ops(post_ops);
  return attr;
}

// Data of 1 to 5 dimensions (batch, channels, spatial...) laid out so, as the kernel's
// dnnl_kernel_data_tag: channels last (NWC, NHWC, NDHWC) and blocked (nCw16c, nChw16c,
// nCdhw16c) for data with spatial dimensions, plain otherwise.
Tag data_tag(std::size_t ndims, Layout layout) {
  static const Tag plain[] = {Tag::a, Tag::ab, Tag::abc, Tag::abcd, Tag::abcde};
  static const Tag last[] = {Tag::acb, Tag::acdb, Tag::acdeb};
  static const Tag blocked[] = {Tag::aBc16b, Tag::aBcd16b, Tag::aBcde16b};
  if (layout == Layout::kPlain || ndims < 3) return plain[ndims - 1];
  return layout == Layout::kChannelsLast ? last[ndims - 3] : blocked[ndims - 3];
}

// The rank of an implementation's instruction set ("brg:avx512_core"), as the kernel ranks
// it: 0 for plain C++ ("ref:any"), 1 + its index in kIsas, or the largest rank for a name
// that says none (jit:uni, gemm:jit: the newest the CPU has).
std::int64_t isa_rank(std::string_view implementation) {
  std::string_view isa = implementation.substr(implementation.rfind(':') + 1);
  if (isa == "any") return 0;
  auto it = std::find(std::begin(kIsas), std::end(kIsas), isa);
  return it == std::end(kIsas) ? std::numeric_limits<std::int64_t>::max()
                               : (it - std::begin(kIsas)) + 1;
}

// `pd` at its first implementation within the target's max_isa (oneDNN's iterator reads the
// op's descriptor: call it while that lives).
template <typename PrimitiveDesc>
PrimitiveDesc first_within(const Target& target, PrimitiveDesc pd) {
  if (std::int64_t max_isa = max_isa_rank(target); max_isa > 0)
    while (isa_rank(pd.impl_info_str()) > max_isa)
      if (!pd.next_impl())
        throw ::dnnl::error(dnnl_unimplemented,
                            fmt::format("none within max_isa {}", kIsas[max_isa - 1]).c_str());
  return pd;
}

// The primitive `make` describes.
template <typename Make>
Expected<Primitive> primitive(Make make) {
  try {
    ::dnnl::engine engine(::dnnl::engine::kind::cpu, 0);
    auto pd = make(engine);
    return Primitive{
        .implementation = pd.impl_info_str(),
        .scratchpad_bytes = static_cast<std::int64_t>(pd.scratchpad_desc().get_size())};
  } catch (const ::dnnl::error& e) {
    return make_error("oneDNN makes no primitive for it ({})", e.what());
  }
}

}  // namespace

Expected<Primitive> conv_primitive(const ConvCall& call, const Target& target) {
  auto rank = static_cast<std::size_t>(call.rank);
  memory::dims src{call.batch, call.in_channels}, dst{call.batch, call.out_channels};
  memory::dims weights{call.out_channels, call.in_channels / call.groups};
  if (call.groups > 1)
    weights = {call.groups, call.out_channels / call.groups, call.in_channels / call.groups};
  memory::dims strides, dilation, pad_begin, pad_end;
  for (std::size_t i = 0; i < rank; ++i) {
    src.push_back(call.in[i]);
    dst.push_back(call.out[i]);
    weights.push_back(call.kernel[i]);
    strides.push_back(call.strides[i]);
    dilation.push_back(call.dilation[i] - 1);
    pad_begin.push_back(call.pad_begin[i]);
    pad_end.push_back(call.pad_end[i]);
  }
  // Data in the caller's layout is computed in place where the algorithm takes it (Winograd
  // only blocked, direct convolutions channels last too); else in the layout oneDNN likes,
  // the kernel reordering it.
  bool winograd = call.algorithm == dnnl_convolution_winograd;
  auto in_place = [&](Layout layout) {
    return layout == Layout::kBlocked16 || (layout == Layout::kChannelsLast && !winograd)
               ? data_tag(rank + 2, layout)
               : Tag::any;
  };
  Tag src_tag = in_place(call.layouts.src);
  Tag dst_tag = in_place(call.layouts.dst);
  // With bf16, the data and weights are multiplied in bfloat16, summed in f32.
  Dt multiplied = call.bf16 ? Dt::bf16 : Dt::f32;
  return primitive([&](const ::dnnl::engine& engine) {
    memory::desc bias =
        call.epilogue.bias != nullptr ? f32({call.out_channels}, Tag::a) : memory::desc();
    ::dnnl::convolution_forward::desc desc(
        ::dnnl::prop_kind::forward_inference, static_cast<::dnnl::algorithm>(call.algorithm),
        memory::desc(src, multiplied, src_tag), memory::desc(weights, multiplied, Tag::any), bias,
        f32(dst, dst_tag), strides, dilation, pad_begin, pad_end);
    // A residual is read where it is by a binary add when the result is computed in place;
    // Winograd has no binary post-op, so it adds one copied into the destination (sum).
    memory::desc in_place = dst_tag == Tag::any || winograd ? memory::desc() : f32(dst, dst_tag);
    return first_within(target, ::dnnl::convolution_forward::primitive_desc(
                                    desc, attributes(call.epilogue, in_place), engine));
  });
}

Expected<Primitive> dense_primitive(const DenseCall& call, const Target& target) {
  return primitive([&](const ::dnnl::engine& engine) {
    memory::desc bias =
        call.epilogue.bias != nullptr ? f32({call.out_features}, Tag::a) : memory::desc();
    Dt multiplied = call.bf16 ? Dt::bf16 : Dt::f32;
    ::dnnl::inner_product_forward::desc desc(
        ::dnnl::prop_kind::forward_inference,
        memory::desc({call.batch, call.in_features}, multiplied, Tag::ab),
        memory::desc({call.out_features, call.in_features}, multiplied, Tag::any), bias,
        f32({call.batch, call.out_features}, Tag::ab));
    return first_within(target, ::dnnl::inner_product_forward::primitive_desc(
                                    desc, attributes(call.epilogue), engine));
  });
}

Expected<Primitive> matmul_primitive(const MatmulCall& call, const Target& target) {
  auto rank = static_cast<std::size_t>(call.rank);
  auto dims = [&](const std::int64_t* values) { return memory::dims(values, values + rank); };
  memory::dims dst = dims(call.dst_dims);
  memory::dims bias_dims(rank, 1);
  bias_dims.back() = dst.back();
  Tag plain = data_tag(rank, Layout::kPlain);
  return primitive([&](const ::dnnl::engine& engine) {
    memory::desc bias = call.epilogue.bias != nullptr ? f32(bias_dims, plain) : memory::desc();
    // The result is plain, so a residual is read where it is, by a binary add.
    ::dnnl::matmul::desc desc(
        memory::desc(dims(call.src_dims), Dt::f32, dims(call.src_strides)),
        memory::desc(dims(call.weights_dims), Dt::f32, dims(call.weights_strides)), bias,
        f32(dst, plain));
    return first_within(target, ::dnnl::matmul::primitive_desc(
                                    desc, attributes(call.epilogue, f32(dst, plain)), engine));
  });
}

Expected<Primitive> pool_primitive(const PoolCall& call, const Target& target) {
  auto rank = static_cast<std::size_t>(call.rank);
  memory::dims src{call.batch, call.channels}, dst{call.batch, call.channels};
  memory::dims kernel, strides, dilation, pad_begin, pad_end;
  for (std::size_t i = 0; i < rank; ++i) {
    src.push_back(call.in[i]);
    dst.push_back(call.out[i]);
    kernel.push_back(call.kernel[i]);
    strides.push_back(call.strides[i]);
    dilation.push_back(call.dilation[i] - 1);
    pad_begin.push_back(call.pad_begin[i]);
    pad_end.push_back(call.pad_end[i]);
  }
  // A pooling computes in its data's layout (the kernel reorders a result laid out otherwise).
  Tag tag = data_tag(rank + 2, call.layouts.src);
  return primitive([&](const ::dnnl::engine& engine) {
    ::dnnl::pooling_v2_forward::desc desc(
        ::dnnl::prop_kind::forward_inference, static_cast<::dnnl::algorithm>(call.algorithm),
        f32(src, tag), f32(dst, tag), strides, kernel, dilation, pad_begin, pad_end);
    return first_within(target,
                        ::dnnl::pooling_v2_forward::primitive_desc(desc, attributes({}), engine));
  });
}

Expected<Primitive> softmax_primitive(const SoftmaxCall& call, const Target& target) {
  return primitive([&](const ::dnnl::engine& engine) {
    memory::desc data = f32({call.outer, call.axis, call.inner}, Tag::abc);
    ::dnnl::softmax_v2_forward::desc desc(
        ::dnnl::prop_kind::forward_inference,
        call.log ? ::dnnl::algorithm::softmax_log : ::dnnl::algorithm::softmax_accurate, data, data,
        1);
    return first_within(target,
                        ::dnnl::softmax_v2_forward::primitive_desc(desc, attributes({}), engine));
  });
}

Expected<Primitive> binary_primitive(const BinaryCall& call, const Target& target) {
  auto rank = static_cast<std::size_t>(call.rank);
  memory::dims dims(call.dims, call.dims + rank), broadcast(call.broadcast, call.broadcast + rank);
  // Computed in the full operand's layout (the kernel reorders a result laid out otherwise);
  // the broadcast operand is plain.
  Tag plain_tag = data_tag(rank, Layout::kPlain);
  Tag tag = data_tag(rank, call.layouts.src);
  return primitive([&](const ::dnnl::engine& engine) {
    ::dnnl::binary::desc desc(static_cast<::dnnl::algorithm>(call.algorithm), f32(dims, tag),
                              f32(broadcast, plain_tag), f32(dims, tag));
    return first_within(target, ::dnnl::binary::primitive_desc(desc, attributes({}), engine));
  });
}

Expected<Primitive> norm_primitive(const NormCall& call, const Target& target) {
  return primitive([&](const ::dnnl::engine& engine) {
    using Flags = ::dnnl::normalization_flags;
    if (call.layer) {
      Flags flags = Flags::use_scale | (call.has_shift ? Flags::use_shift : Flags::none);
      ::dnnl::layer_normalization_forward::desc desc(::dnnl::prop_kind::forward_inference,
                                                     f32({call.outer, call.inner}, Tag::ab),
                                                     call.epsilon, flags);
      return ::dnnl::primitive_desc(first_within(
          target,
          ::dnnl::layer_normalization_forward::primitive_desc(desc, attributes({}), engine)));
    }
    auto rank = static_cast<std::size_t>(call.rank);
    Tag tag = data_tag(rank, call.layouts.src);
    ::dnnl::batch_normalization_forward::desc desc(
        ::dnnl::prop_kind::forward_inference, f32(memory::dims(call.dims, call.dims + rank), tag),
        call.epsilon,
        Flags::use_global_stats | Flags::use_scale | Flags::use_shift |
            (call.relu ? Flags::fuse_norm_relu : Flags::none));
    return ::dnnl::primitive_desc(first_within(
        target, ::dnnl::batch_normalization_forward::primitive_desc(desc, attributes({}), engine)));
  });
}

Expected<Primitive> eltwise_primitive(const EltwiseCall& call, const Target& target) {
  return primitive([&](const ::dnnl::engine& engine) {
    memory::desc data = f32({call.elements}, Tag::a);
    ::dnnl::eltwise_forward::desc desc(::dnnl::prop_kind::forward_inference,
                                       static_cast<::dnnl::algorithm>(call.op.eltwise), data,
                                       call.op.alpha, call.op.beta);
    return first_within(target,
                        ::dnnl::eltwise_forward::primitive_desc(desc, attributes({}), engine));
  });
}

Status check_implementation(std::string_view composite, const Expected<Primitive>& primitive) {
  if (!primitive) return make_error("dnnl.{}: {}", composite, primitive.error().message());
  if (primitive->implementation.starts_with("ref"))
    return make_error("dnnl.{}: oneDNN would run its slow reference implementation ({})", composite,
                      primitive->implementation);
  return Status::success();
}

}  // namespace uma::backends::dnnl
