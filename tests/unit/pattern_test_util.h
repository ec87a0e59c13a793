// A fixture for pattern tests: parses a module from text and finds nodes by their loc(...)
// names, so that expected bindings and failure messages read like the text.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <variant>
#include <vector>

#include "uma/graph/parser.h"
#include "uma/pattern/pattern.h"
#include "uma/uma/context.h"

namespace uma {

class PatternTest : public ::testing::Test {
 protected:
  void parse(const char* text) {
    auto module = parse_module(context_, text, "test");
    ASSERT_TRUE(module.ok()) << module.error().message();
    module_ = std::move(*module);
    main_ = module_->find_function("main");
    ASSERT_NE(main_, nullptr);
  }

  Node* node(std::string_view name) const {
    for (const auto& n : main_->nodes())
      if (n->name() == name) return n.get();
    ADD_FAILURE() << "no node named " << name;
    return nullptr;
  }
  // The first result of the node named `name`.
  Value* value(std::string_view name) const { return node(name)->result(); }
  Value* param(std::string_view name) const {
    for (Value* p : main_->params())
      if (p->name() == name) return p;
    ADD_FAILURE() << "no parameter named " << name;
    return nullptr;
  }

  // "%x" for parameters, the node's name for results ("split1#1" for multi-result nodes).
  static std::string name_of(const Value* v) {
    if (v == nullptr) return "<null>";
    if (v->is_param()) return "%" + v->name();
    const Node& n = *v->producer();
    return n.num_results() > 1 ? n.name() + "#" + std::to_string(v->index()) : n.name();
  }
  static std::vector<std::string> names(const std::vector<Node*>& nodes) {
    std::vector<std::string> out;
    for (const Node* n : nodes) out.push_back(n->name());
    return out;
  }
  static std::vector<std::string> names(const std::vector<Value*>& values) {
    std::vector<std::string> out;
    for (const Value* v : values) out.push_back(name_of(v));
    return out;
  }

  static Match matched(std::variant<Match, MatchFailure> result) {
    if (const auto* failure = std::get_if<MatchFailure>(&result)) {
      ADD_FAILURE() << "no match: " << failure->to_string();
      return {};
    }
    return std::get<Match>(std::move(result));
  }
  static MatchFailure failed(std::variant<Match, MatchFailure> result) {
    if (std::holds_alternative<Match>(result)) {
      ADD_FAILURE() << "unexpected match";
      return {};
    }
    return std::get<MatchFailure>(std::move(result));
  }

  Context context_;
  std::unique_ptr<Module> module_;
  Function* main_ = nullptr;
};

}  // namespace uma
