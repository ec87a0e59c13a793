// Converters of ONNX's recurrent networks: RNN, GRU and LSTM, unrolled at import over their
// static sequence length into ordinary ops, so that every backend sees dense layers and
// elementwise ops: the input projection of all steps is one nn.dense, then each time step
// is an nn.dense of the hidden state, slices into gates, activations and products.
//
// Forward, reverse and bidirectional directions; initial states; sequence_lens (each batch
// entry stops at its length: its state stays and its outputs are zero after it, and the
// reverse direction starts at its last valid step); clip of the gates' pre-activations; every
// activation the spec allows, with activation_alpha and activation_beta consumed in order by
// the activations that take them; LSTM's peepholes and input_forget; GRU's
// linear_before_reset.
//
// Opset differences handled here: `layout` (from 14) puts the batch first in X, the states
// and the outputs. Before 7 the ops had an output_sequence attribute (no effect on values).
#include <algorithm>
#include <cctype>
#include <optional>

#include "static_input.h"

namespace uma::onnx_import {
namespace {

using Ints = std::vector<std::int64_t>;
using Values = std::vector<Value*>;

enum class Cell { Rnn, Gru, Lstm };

struct Activation {
  std::string name;  // lower case
  double alpha = 0, beta = 0;
};

// What one recurrent op is made of.
struct Recurrence {
  Cell cell;
  std::int64_t gates;       // 1, 3 or 4 blocks of hidden_size rows in W and R
  std::int64_t directions;  // 1 or 2
  bool reverse;             // the only direction is reverse
  std::int64_t seq, batch, hidden;
  Value* x;                             // (seq, batch, input), the time major layout
  Value *w, *r, *bias, *lengths;        // bias and lengths may be null
  Value *initial_h, *initial_c, *p;     // (directions, batch, hidden) and peepholes, may be null
  std::vector<Activation> activations;  // per direction, in the spec's order
  std::optional<double> clip;
  bool input_forget = false, linear_before_reset = false, batch_first = false;
};

// v[begin:end] along `axis`.
Expected<Value*> slice(NodeContext& ctx, Value* v, std::int64_t axis, std::int64_t begin,
                       std::int64_t end) {
  return ctx.emit_value(
      "strided_slice", {v},
      attrs_of({{"begin", Ints{begin}}, {"end", Ints{end}}, {"axes", Ints{axis}}}));
}

// Block k of `size` elements along the last axis: gate k of a projection, or of a bias.
Expected<Value*> block(NodeContext& ctx, Value* v, std::int64_t k, std::int64_t size) {
  auto axis = static_cast<std::int64_t>(shape_of(v).size()) - 1;
  return slice(ctx, v, axis, k * size, (k + 1) * size);
}

Expected<Value*> binary(NodeContext& ctx, const char* op, Value* a, Value* b) {
  return ctx.emit_value(op, {a, b});
}

// The spec's activation functions and their default alpha and beta (those of the ONNX ops
// of the same names; Affine and ScaledTanh, which have none, scale by 1 and shift by 0).
struct ActivationKind {
  const char* name;  // lower case
  int parameters;    // how many of alpha, beta it takes
  double alpha, beta;
};
constexpr ActivationKind kActivations[] = {{"relu", 0, 0, 0},         {"tanh", 0, 0, 0},
                                           {"sigmoid", 0, 0, 0},      {"affine", 2, 1, 0},
                                           {"leakyrelu", 1, 0.01, 0}, {"thresholdedrelu", 1, 1, 0},
                                           {"scaledtanh", 2, 1, 1},   {"hardsigmoid", 2, 0.2, 0.5},
                                           {"elu", 1, 1, 0},          {"softsign", 0, 0, 0},
                                           {"softplus", 0, 0, 0}};

Expected<Value*> activate(NodeContext& ctx, const Activation& a, Value* x) {
  const DType dtype = x->tensor_type().dtype;
  if (a.name == "relu") return ctx.emit_value("nn.relu", {x});
  if (a.name == "tanh") return ctx.emit_value("tanh", {x});
  if (a.name == "sigmoid") return ctx.emit_value("sigmoid", {x});
  if (a.name == "softsign") return ctx.emit_value("nn.softsign", {x});
  if (a.name == "softplus") return ctx.emit_value("nn.softplus", {x});
  if (a.name == "leakyrelu")
    return ctx.emit_value("nn.leaky_relu", {x}, attrs_of({{"alpha", a.alpha}}));
  if (a.name == "thresholdedrelu")
    return ctx.emit_value("nn.thresholded_relu", {x}, attrs_of({{"alpha", a.alpha}}));
  if (a.name == "elu") return ctx.emit_value("nn.elu", {x}, attrs_of({{"alpha", a.alpha}}));
  if (a.name == "hardsigmoid")
    return ctx.emit_value("nn.hard_sigmoid", {x}, attrs_of({{"alpha", a.alpha}, {"beta", a.beta}}));
  if (a.name == "affine") {
    UMA_TRY_ASSIGN(Value * scaled, binary(ctx, "multiply", x, scalar(ctx, dtype, a.alpha)));
    return binary(ctx, "add", scaled, scalar(ctx, dtype, a.beta));
  }
  // scaledtanh: alpha * tanh(beta * x)
  UMA_TRY_ASSIGN(Value * inner, binary(ctx, "multiply", x, scalar(ctx, dtype, a.beta)));
  UMA_TRY_ASSIGN(Value * t, ctx.emit_value("tanh", {inner}));
  return binary(ctx, "multiply", t, scalar(ctx, dtype, a.alpha));
}

// The activations attribute, or the defaults for each direction, with their parameters.
Expected<std::vector<Activation>> activations(const NodeContext& ctx, std::int64_t directions,
                                              const std::vector<std::string>& defaults) {
  std::vector<std::string> names;
  if (ctx.has_attr("activations")) {
    const onnx::AttributeProto* attr = nullptr;
    for (const auto& a : ctx.proto().attribute())
      if (a.name() == "activations") attr = &a;
    for (const std::string& s : attr->strings()) names.push_back(s);
    if (names.size() != defaults.size() * static_cast<std::size_t>(directions))
      return make_error("attribute 'activations' has {} names, but {} takes {} per direction ({})",
                        names.size(), ctx.op_type(), defaults.size(), directions);
  } else {
    for (std::int64_t d = 0; d < directions; ++d)
      names.insert(names.end(), defaults.begin(), defaults.end());
  }
  UMA_TRY_ASSIGN(std::vector<double> alphas,
                 ctx.attr_floats("activation_alpha", std::vector<double>{}));
  UMA_TRY_ASSIGN(std::vector<double> betas,
                 ctx.attr_floats("activation_beta", std::vector<double>{}));
  std::size_t next_alpha = 0, next_beta = 0;
  std::vector<Activation> result;
  for (const std::string& name : names) {
    Activation a{name};
    std::transform(a.name.begin(), a.name.end(), a.name.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    const ActivationKind* kind = nullptr;
    for (const ActivationKind& k : kActivations)
      if (a.name == k.name) kind = &k;
    if (kind == nullptr)
      return make_error(
          "attribute 'activations' names '{}', which is not one of Relu, Tanh, Sigmoid, Affine, "
          "LeakyRelu, ThresholdedRelu, ScaledTanh, HardSigmoid, Elu, Softsign, Softplus",
          name);
    a.alpha =
        kind->parameters >= 1 && next_alpha < alphas.size() ? alphas[next_alpha++] : kind->alpha;
    a.beta = kind->parameters >= 2 && next_beta < betas.size() ? betas[next_beta++] : kind->beta;
    result.push_back(std::move(a));
  }
  return result;
}

// An input of shape `expected`, or an error naming it.
Status check_shape(const Value* value, std::size_t index, const char* name, const Shape& expected) {
  if (value != nullptr && shape_of(value) != expected)
    return make_error("input {} ('{}') has shape {}, but must have shape {}", index, name,
                      to_string(shape_of(value)), to_string(expected));
  return Status::success();
}

// A state input (initial_h or initial_c), in the time major layout.
Expected<Value*> state_input(NodeContext& ctx, const Recurrence& rec, std::size_t index,
                             const char* name) {
  if (!ctx.has_input(index)) return nullptr;
  Value* state = ctx.input(index);
  Shape expected = {rec.directions, rec.batch, rec.hidden};
  if (rec.batch_first) std::swap(expected[0], expected[1]);
  UMA_TRY(check_shape(state, index, name, expected));
  if (!rec.batch_first) return state;
  return ctx.emit_value("transpose", {state}, attrs_of({{"axes", Ints{1, 0, 2}}}));
}

Expected<Recurrence> read_recurrence(NodeContext& ctx, Cell cell,
                                     const std::vector<std::string>& default_activations) {
  Recurrence rec{.cell = cell, .gates = cell == Cell::Rnn ? 1 : cell == Cell::Gru ? 3 : 4};
  UMA_TRY_ASSIGN(rec.x, required_input(ctx, 0, "X"));
  UMA_TRY_ASSIGN(rec.w, required_input(ctx, 1, "W"));
  UMA_TRY_ASSIGN(rec.r, required_input(ctx, 2, "R"));
  UMA_TRY_ASSIGN(std::string direction, ctx.attr_string("direction", "forward"));
  if (direction != "forward" && direction != "reverse" && direction != "bidirectional")
    return make_error(
        "attribute 'direction' is '{}', but must be forward, reverse or bidirectional", direction);
  rec.directions = direction == "bidirectional" ? 2 : 1;
  rec.reverse = direction == "reverse";
  if (ctx.opset() >= 14) {
    UMA_TRY_ASSIGN(std::int64_t layout, ctx.attr_int("layout", 0));
    if (layout != 0 && layout != 1)
      return make_error("attribute 'layout' is {}, but must be 0 or 1", layout);
    rec.batch_first = layout == 1;
  }
  if (shape_of(rec.x).size() != 3)
    return make_error("input 0 ('X') is {}, but must have rank 3", to_string(rec.x->type()));
  if (rec.batch_first) {
    UMA_TRY_ASSIGN(rec.x,
                   ctx.emit_value("transpose", {rec.x}, attrs_of({{"axes", Ints{1, 0, 2}}})));
  }
  rec.seq = shape_of(rec.x)[0];
  rec.batch = shape_of(rec.x)[1];
  const std::int64_t input_size = shape_of(rec.x)[2];
  if (shape_of(rec.r).size() != 3)
    return make_error("input 2 ('R') is {}, but must have rank 3", to_string(rec.r->type()));
  rec.hidden = shape_of(rec.r)[2];
  UMA_TRY_ASSIGN(std::int64_t hidden_size, ctx.attr_int("hidden_size", rec.hidden));
  if (hidden_size != rec.hidden)
    return make_error("attribute 'hidden_size' is {}, but input 2 ('R') is {}", hidden_size,
                      to_string(rec.r->type()));
  const std::int64_t rows = rec.gates * rec.hidden;
  UMA_TRY(check_shape(rec.w, 1, "W", {rec.directions, rows, input_size}));
  UMA_TRY(check_shape(rec.r, 2, "R", {rec.directions, rows, rec.hidden}));
  rec.bias = ctx.input(3);
  UMA_TRY(check_shape(rec.bias, 3, "B", {rec.directions, 2 * rows}));
  rec.lengths = ctx.input(4);
  UMA_TRY(check_shape(rec.lengths, 4, "sequence_lens", {rec.batch}));
  if (TensorPtr lengths = ctx.constant_input(4)) {
    bool all_full = true;
    for (std::int64_t b = 0; b < rec.batch; ++b) all_full &= lengths->get(b) == rec.seq;
    if (all_full) rec.lengths = nullptr;  // nothing to mask
  }
  UMA_TRY_ASSIGN(rec.initial_h, state_input(ctx, rec, 5, "initial_h"));
  if (cell == Cell::Lstm) {
    UMA_TRY_ASSIGN(rec.initial_c, state_input(ctx, rec, 6, "initial_c"));
    rec.p = ctx.input(7);
    UMA_TRY(check_shape(rec.p, 7, "P", {rec.directions, 3 * rec.hidden}));
    UMA_TRY_ASSIGN(std::int64_t input_forget, ctx.attr_int("input_forget", 0));
    rec.input_forget = input_forget != 0;
  }
  if (cell == Cell::Gru) {
    UMA_TRY_ASSIGN(std::int64_t lbr, ctx.attr_int("linear_before_reset", 0));
    rec.linear_before_reset = lbr != 0;
  }
  if (ctx.has_attr("clip")) {
    UMA_TRY_ASSIGN(double clip, ctx.attr_float("clip", std::nullopt));
    if (!(clip > 0)) return make_error("attribute 'clip' is {}, but must be positive", clip);
    rec.clip = clip;
  }
  UMA_TRY_ASSIGN(rec.activations, activations(ctx, rec.directions, default_activations));
  return rec;
}

// One direction's weights, its per-step state and its outputs.
struct Direction {
  Value *r, *r_bias;      // (gates * hidden, hidden) and its bias, or null
  Value* p;               // peepholes (3 * hidden), or null
  const Activation* f;    // the cell's activations, in the spec's order
  Value *h, *c;           // the state
  std::vector<Value*> y;  // per time step, (batch, hidden)
};

// A gate's pre-activation clipped when the node asks for it, then activated.
Expected<Value*> gate(NodeContext& ctx, const Recurrence& rec, const Activation& a, Value* x) {
  if (rec.clip) {
    UMA_TRY_ASSIGN(
        x, ctx.emit_value("clip", {x}, attrs_of({{"a_min", -*rec.clip}, {"a_max", *rec.clip}})));
  }
  return activate(ctx, a, x);
}

// The new hidden (and, for LSTM, cell) state from the step's input projection `xw`
// (batch, gates * hidden), bias included.
Expected<std::pair<Value*, Value*>> step(NodeContext& ctx, const Recurrence& rec,
                                         const Direction& dir, Value* xw) {
  const std::int64_t hidden = rec.hidden;
  const DType dtype = xw->tensor_type().dtype;
  auto dense = [&](Value* data, Value* weight, Value* bias) {
    Values operands = {data, weight};
    if (bias != nullptr) operands.push_back(bias);
    return ctx.emit_value("nn.dense", operands);
  };
  auto part = [&](Value* v, std::int64_t k) { return block(ctx, v, k, hidden); };
  auto add = [&](Value* a, Value* b) { return binary(ctx, "add", a, b); };
  auto mul = [&](Value* a, Value* b) { return binary(ctx, "multiply", a, b); };
  auto rows = [&](Value* v, std::int64_t begin, std::int64_t end) -> Expected<Value*> {
    if (v == nullptr) return nullptr;
    return slice(ctx, v, 0, begin * hidden, end * hidden);
  };

  if (rec.cell == Cell::Rnn) {
    UMA_TRY_ASSIGN(Value * hr, dense(dir.h, dir.r, dir.r_bias));
    UMA_TRY_ASSIGN(Value * sum, add(xw, hr));
    UMA_TRY_ASSIGN(Value * h, gate(ctx, rec, dir.f[0], sum));
    return std::pair<Value*, Value*>{h, nullptr};
  }

  if (rec.cell == Cell::Gru) {
    // z, r and h: the reset gate applies to the state before its product with R_h, or,
    // with linear_before_reset, to that product (with its bias).
    UMA_TRY_ASSIGN(Value * r_zr, rows(dir.r, 0, 2));
    UMA_TRY_ASSIGN(Value * b_zr, rows(dir.r_bias, 0, 2));
    UMA_TRY_ASSIGN(Value * r_h, rows(dir.r, 2, 3));
    UMA_TRY_ASSIGN(Value * b_h, rows(dir.r_bias, 2, 3));
    UMA_TRY_ASSIGN(Value * hr, dense(dir.h, r_zr, b_zr));
    UMA_TRY_ASSIGN(Value * xz, part(xw, 0));
    UMA_TRY_ASSIGN(Value * xr, part(xw, 1));
    UMA_TRY_ASSIGN(Value * xh, part(xw, 2));
    UMA_TRY_ASSIGN(Value * hz, part(hr, 0));
    UMA_TRY_ASSIGN(Value * hrr, part(hr, 1));
    UMA_TRY_ASSIGN(Value * z_in, add(xz, hz));
    UMA_TRY_ASSIGN(Value * z, gate(ctx, rec, dir.f[0], z_in));
    UMA_TRY_ASSIGN(Value * r_in, add(xr, hrr));
    UMA_TRY_ASSIGN(Value * r, gate(ctx, rec, dir.f[0], r_in));
    Value* recurrent;
    if (rec.linear_before_reset) {
      UMA_TRY_ASSIGN(Value * hh, dense(dir.h, r_h, b_h));
      UMA_TRY_ASSIGN(recurrent, mul(r, hh));
    } else {
      UMA_TRY_ASSIGN(Value * reset, mul(r, dir.h));
      UMA_TRY_ASSIGN(recurrent, dense(reset, r_h, b_h));
    }
    UMA_TRY_ASSIGN(Value * h_in, add(xh, recurrent));
    UMA_TRY_ASSIGN(Value * candidate, gate(ctx, rec, dir.f[1], h_in));
    // (1 - z) * candidate + z * h = candidate + z * (h - candidate)
    UMA_TRY_ASSIGN(Value * delta, binary(ctx, "subtract", dir.h, candidate));
    UMA_TRY_ASSIGN(Value * kept, mul(z, delta));
    UMA_TRY_ASSIGN(Value * h, add(candidate, kept));
    return std::pair<Value*, Value*>{h, nullptr};
  }

  // LSTM, gates i, o, f, c; peepholes i, o, f.
  UMA_TRY_ASSIGN(Value * hr, dense(dir.h, dir.r, dir.r_bias));
  UMA_TRY_ASSIGN(Value * gates, add(xw, hr));
  UMA_TRY_ASSIGN(Value * i_in, part(gates, 0));
  UMA_TRY_ASSIGN(Value * o_in, part(gates, 1));
  UMA_TRY_ASSIGN(Value * f_in, part(gates, 2));
  UMA_TRY_ASSIGN(Value * c_in, part(gates, 3));
  Value *p_i = nullptr, *p_o = nullptr, *p_f = nullptr;
  if (dir.p != nullptr) {
    UMA_TRY_ASSIGN(p_i, part(dir.p, 0));
    UMA_TRY_ASSIGN(p_o, part(dir.p, 1));
    UMA_TRY_ASSIGN(p_f, part(dir.p, 2));
    UMA_TRY_ASSIGN(Value * pi, mul(p_i, dir.c));
    UMA_TRY_ASSIGN(i_in, add(i_in, pi));
    UMA_TRY_ASSIGN(Value * pf, mul(p_f, dir.c));
    UMA_TRY_ASSIGN(f_in, add(f_in, pf));
  }
  UMA_TRY_ASSIGN(Value * i, gate(ctx, rec, dir.f[0], i_in));
  Value* f;
  if (rec.input_forget) {
    UMA_TRY_ASSIGN(f, binary(ctx, "subtract", scalar(ctx, dtype, 1), i));
  } else {
    UMA_TRY_ASSIGN(f, gate(ctx, rec, dir.f[0], f_in));
  }
  UMA_TRY_ASSIGN(Value * candidate, gate(ctx, rec, dir.f[1], c_in));
  UMA_TRY_ASSIGN(Value * forgotten, mul(f, dir.c));
  UMA_TRY_ASSIGN(Value * written, mul(i, candidate));
  UMA_TRY_ASSIGN(Value * c, add(forgotten, written));
  if (p_o != nullptr) {
    UMA_TRY_ASSIGN(Value * po, mul(p_o, c));
    UMA_TRY_ASSIGN(o_in, add(o_in, po));
  }
  UMA_TRY_ASSIGN(Value * o, gate(ctx, rec, dir.f[0], o_in));
  UMA_TRY_ASSIGN(Value * cell_out, activate(ctx, dir.f[2], c));
  UMA_TRY_ASSIGN(Value * h, mul(o, cell_out));
  return std::pair<Value*, Value*>{h, c};
}

// Runs direction `d` over the sequence, forward or backward, filling dir.y and the state.
Status run_direction(NodeContext& ctx, const Recurrence& rec, std::int64_t d, bool backward,
                     Direction& dir) {
  const DType dtype = rec.x->tensor_type().dtype;
  const std::int64_t rows = rec.gates * rec.hidden;
  UMA_TRY_ASSIGN(Value * w, element_at(ctx, rec.w, 0, d));
  UMA_TRY_ASSIGN(dir.r, element_at(ctx, rec.r, 0, d));
  Value* w_bias = nullptr;
  dir.r_bias = nullptr;
  if (rec.bias != nullptr) {
    UMA_TRY_ASSIGN(Value * bias, element_at(ctx, rec.bias, 0, d));
    UMA_TRY_ASSIGN(w_bias, slice(ctx, bias, 0, 0, rows));
    UMA_TRY_ASSIGN(dir.r_bias, slice(ctx, bias, 0, rows, 2 * rows));
  }
  dir.p = nullptr;
  if (rec.p != nullptr) {
    UMA_TRY_ASSIGN(dir.p, element_at(ctx, rec.p, 0, d));
  }
  const std::size_t per_direction =
      rec.activations.size() / static_cast<std::size_t>(rec.directions);
  dir.f = rec.activations.data() + per_direction * static_cast<std::size_t>(d);
  // The states start at the given ones, or at zero.
  auto zeros = std::make_shared<Tensor>(TensorType{dtype, {rec.batch, rec.hidden}});
  Value* zero_state = ctx.constant(zeros);
  dir.h = zero_state;
  dir.c = zero_state;
  if (rec.initial_h != nullptr) {
    UMA_TRY_ASSIGN(dir.h, element_at(ctx, rec.initial_h, 0, d));
  }
  if (rec.initial_c != nullptr) {
    UMA_TRY_ASSIGN(dir.c, element_at(ctx, rec.initial_c, 0, d));
  }
  // Every step's input projection at once: (seq, batch, rows).
  Values operands = {rec.x, w};
  if (w_bias != nullptr) operands.push_back(w_bias);
  UMA_TRY_ASSIGN(Value * xw, ctx.emit_value("nn.dense", operands));

  dir.y.assign(static_cast<std::size_t>(rec.seq), nullptr);
  for (std::int64_t k = 0; k < rec.seq; ++k) {
    const std::int64_t t = backward ? rec.seq - 1 - k : k;
    UMA_TRY_ASSIGN(Value * xw_t, element_at(ctx, xw, 0, t));
    UMA_TRY_ASSIGN(auto next, step(ctx, rec, dir, xw_t));
    auto [h, c] = next;
    Value* y = h;
    if (rec.lengths != nullptr) {
      // Batch entries whose sequence has ended keep their state and output zeros.
      const DType length_dtype = rec.lengths->tensor_type().dtype;
      UMA_TRY_ASSIGN(
          Value * valid,
          binary(ctx, "less", scalar(ctx, length_dtype, static_cast<double>(t)), rec.lengths));
      UMA_TRY_ASSIGN(
          valid, ctx.emit_value("reshape", {valid}, attrs_of({{"newshape", Ints{rec.batch, 1}}})));
      UMA_TRY_ASSIGN(y, ctx.emit_value("where", {valid, h, zero_state}));
      UMA_TRY_ASSIGN(h, ctx.emit_value("where", {valid, h, dir.h}));
      if (c != nullptr) {
        UMA_TRY_ASSIGN(c, ctx.emit_value("where", {valid, c, dir.c}));
      }
    }
    dir.h = h;
    if (c != nullptr) dir.c = c;
    dir.y[static_cast<std::size_t>(t)] = y;
  }
  return Status::success();
}

// Y (seq, directions, batch, hidden), Y_h and, for LSTM, Y_c (directions, batch, hidden), in
// the node's layout; as many as the node has outputs.
Expected<Values> convert_recurrence(NodeContext& ctx, Cell cell,
                                    const std::vector<std::string>& default_activations) {
  UMA_TRY_ASSIGN(Recurrence rec, read_recurrence(ctx, cell, default_activations));
  std::vector<Direction> dirs(static_cast<std::size_t>(rec.directions));
  for (std::int64_t d = 0; d < rec.directions; ++d)
    UMA_TRY(run_direction(ctx, rec, d, rec.reverse || d == 1, dirs[static_cast<std::size_t>(d)]));
  Values per_step, last_h, last_c;
  for (std::int64_t t = 0; t < rec.seq; ++t) {
    Values directions;
    for (const Direction& dir : dirs) directions.push_back(dir.y[static_cast<std::size_t>(t)]);
    UMA_TRY_ASSIGN(Value * at_t, stack(ctx, directions, 0));
    per_step.push_back(at_t);
  }
  for (const Direction& dir : dirs) {
    last_h.push_back(dir.h);
    last_c.push_back(dir.c);
  }
  UMA_TRY_ASSIGN(Value * y, stack(ctx, per_step, 0));
  UMA_TRY_ASSIGN(Value * y_h, stack(ctx, last_h, 0));
  Values outputs = {y, y_h};
  if (cell == Cell::Lstm) {
    UMA_TRY_ASSIGN(Value * y_c, stack(ctx, last_c, 0));
    outputs.push_back(y_c);
  }
  if (rec.batch_first) {
    UMA_TRY_ASSIGN(outputs[0], ctx.emit_value("transpose", {outputs[0]},
                                              attrs_of({{"axes", Ints{2, 0, 1, 3}}})));
    for (std::size_t i = 1; i < outputs.size(); ++i) {
      UMA_TRY_ASSIGN(outputs[i], ctx.emit_value("transpose", {outputs[i]},
                                                attrs_of({{"axes", Ints{1, 0, 2}}})));
    }
  }
  outputs.resize(
      std::min<std::size_t>(outputs.size(), static_cast<std::size_t>(ctx.proto().output_size())));
  return outputs;
}

}  // namespace

// Each op with the first opset of the definition converted (see ConverterEntry).
void register_rnn_converters(ConverterTable& table) {
  table.add("RNN", 1,
            [](NodeContext& ctx) { return convert_recurrence(ctx, Cell::Rnn, {"Tanh"}); });
  table.add("GRU", 1, [](NodeContext& ctx) {
    return convert_recurrence(ctx, Cell::Gru, {"Sigmoid", "Tanh"});
  });
  table.add("LSTM", 1, [](NodeContext& ctx) {
    return convert_recurrence(ctx, Cell::Lstm, {"Sigmoid", "Tanh", "Tanh"});
  });
}

}  // namespace uma::onnx_import
