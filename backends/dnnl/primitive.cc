// The primitive oneDNN makes for a composite, made at build time the way the kernel's init
// makes it at load time (kernels/dnnl_ops.c: the data in the call's layouts, weights in the
// layout oneDNN picks, the same post-ops, a user scratchpad), to ask which implementation
// oneDNN would run (the predicates refuse its slow reference one) and how large a scratchpad
// it needs (the lowering allocates it).
#include <fmt/format.h>
#include <oneapi/dnnl/dnnl.hpp>

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
  ::dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(::dnnl::scratchpad_mode::user);
  attr.set_post_ops(post_ops);
  return attr;
}

// Channels last for a tensor of `rank` spatial dimensions: NWC, NHWC, NDHWC.
Tag channels_last(std::size_t rank) {
  return rank == 1 ? Tag::acb : rank == 2 ? Tag::acdb : Tag::acdeb;
}

Tag plain(std::size_t rank) { return rank == 1 ? Tag::abc : rank == 2 ? Tag::abcd : Tag::abcde; }

template <typename Make>
Expected<Primitive> primitive(Make make) {
  try {
    ::dnnl::engine engine(::dnnl::engine::kind::cpu, 0);
    auto pd = make(engine);
    return Primitive{.implementation = pd.impl_info_str(),
                     .scratchpad_bytes = static_cast<std::int64_t>(pd.scratchpad_desc().get_size())};
  } catch (const ::dnnl::error& e) {
    return make_error("oneDNN makes no primitive for it ({})", e.what());
  }
}

}  // namespace

Expected<Primitive> conv_primitive(const ConvCall& call) {
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
  // Data channels last is given as such (oneDNN's convolutions compute it in place), unless
  // Winograd, which wants its own blocked layout; plain data, as oneDNN likes it (the kernel
  // reorders it).
  bool blocked = call.algorithm == dnnl_convolution_winograd;
  Tag src_tag = call.layouts.src_channels_last && !blocked ? channels_last(rank) : Tag::any;
  Tag dst_tag = call.layouts.dst_channels_last && !blocked ? channels_last(rank) : Tag::any;
  return primitive([&](const ::dnnl::engine& engine) {
    memory::desc bias =
        call.epilogue.bias != nullptr ? f32({call.out_channels}, Tag::a) : memory::desc();
    ::dnnl::convolution_forward::desc desc(
        ::dnnl::prop_kind::forward_inference, static_cast<::dnnl::algorithm>(call.algorithm),
        f32(src, src_tag), f32(weights, Tag::any), bias, f32(dst, dst_tag), strides, dilation,
        pad_begin, pad_end);
    memory::desc in_place = dst_tag == Tag::any ? memory::desc() : f32(dst, dst_tag);
    return ::dnnl::convolution_forward::primitive_desc(desc, attributes(call.epilogue, in_place),
                                                       engine);
  });
}

Expected<Primitive> dense_primitive(const DenseCall& call) {
  return primitive([&](const ::dnnl::engine& engine) {
    memory::desc bias =
        call.epilogue.bias != nullptr ? f32({call.out_features}, Tag::a) : memory::desc();
    ::dnnl::inner_product_forward::desc desc(::dnnl::prop_kind::forward_inference,
                                             f32({call.batch, call.in_features}, Tag::ab),
                                             f32({call.out_features, call.in_features}, Tag::any),
                                             bias, f32({call.batch, call.out_features}, Tag::ab));
    return ::dnnl::inner_product_forward::primitive_desc(desc, attributes(call.epilogue), engine);
  });
}

Expected<Primitive> pool_primitive(const PoolCall& call) {
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
  Tag tag = call.layouts.src_channels_last ? channels_last(rank) : plain(rank);
  return primitive([&](const ::dnnl::engine& engine) {
    ::dnnl::pooling_v2_forward::desc desc(
        ::dnnl::prop_kind::forward_inference, static_cast<::dnnl::algorithm>(call.algorithm),
        f32(src, tag), f32(dst, tag), strides, kernel, dilation, pad_begin, pad_end);
    return ::dnnl::pooling_v2_forward::primitive_desc(desc, attributes({}), engine);
  });
}

Expected<Primitive> softmax_primitive(const SoftmaxCall& call) {
  return primitive([&](const ::dnnl::engine& engine) {
    memory::desc data = f32({call.outer, call.axis, call.inner}, Tag::abc);
    ::dnnl::softmax_v2_forward::desc desc(
        ::dnnl::prop_kind::forward_inference,
        call.log ? ::dnnl::algorithm::softmax_log : ::dnnl::algorithm::softmax_accurate, data, data,
        1);
    return ::dnnl::softmax_v2_forward::primitive_desc(desc, attributes({}), engine);
  });
}

Status check_implementation(std::string_view composite, const Expected<Primitive>& primitive) {
  if (!primitive) return make_error("dnnl.{}: {}", composite, primitive.error().message());
  if (primitive->implementation.starts_with("ref"))
    return make_error("dnnl.{}: oneDNN would run its slow reference implementation ({})",
                      composite, primitive->implementation);
  return Status::success();
}

}  // namespace uma::backends::dnnl
