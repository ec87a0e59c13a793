// Errors as values (user mistakes, bad input) and checks of internal invariants (bugs).
#pragma once

#include <fmt/format.h>

#include <cstdlib>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace uma {

// A user-facing error: one message that names the place at fault (file, node, op,
// attribute). Returned, never thrown across the public API.
class Error {
 public:
  explicit Error(std::string message) : message_(std::move(message)) {}
  const std::string& message() const { return message_; }

  // Prefixes the message with where it happened, e.g. "node 'conv1' (nn.conv2d): ".
  Error with_context(std::string_view context) const {
    return Error(fmt::format("{}: {}", context, message_));
  }

 private:
  std::string message_;
};

template <typename... Args>
Error make_error(fmt::format_string<Args...> format, Args&&... args) {
  return Error(fmt::format(format, std::forward<Args>(args)...));
}

// A value or an Error. A small stand-in for C++23's std::expected.
template <typename T>
class [[nodiscard]] Expected {
 public:
  Expected(T value) : state_(std::move(value)) {}      // NOLINT: implicit by design
  Expected(Error error) : state_(std::move(error)) {}  // NOLINT: implicit by design

  bool ok() const { return state_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { return std::get<0>(state_); }
  const T& value() const& { return std::get<0>(state_); }
  T&& value() && { return std::get<0>(std::move(state_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const Error& error() const { return std::get<1>(state_); }

 private:
  std::variant<T, Error> state_;
};

// Success or an Error.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Error error) : error_(std::move(error)) {}  // NOLINT: implicit by design
  static Status success() { return Status(); }

  bool ok() const { return !error_.has_value(); }
  explicit operator bool() const { return ok(); }
  const Error& error() const { return *error_; }

 private:
  std::optional<Error> error_;
};

// Reports a broken internal invariant — a bug in uma, not a user mistake — and aborts.
[[noreturn]] void internal_error(const char* file, int line, const std::string& message);

}  // namespace uma

// Checks an internal invariant. Never use it for conditions a user's input can cause.
#define UMA_CHECK(cond, ...)                                                                     \
  do {                                                                                           \
    if (!(cond))                                                                                 \
      ::uma::internal_error(__FILE__, __LINE__,                                                  \
                            "check failed: " #cond " " __VA_OPT__(+::fmt::format(__VA_ARGS__))); \
  } while (0)

// Unwraps an Expected in a function that itself returns Expected or Status.
#define UMA_TRY_ASSIGN(lhs, expr)                                                            \
  auto UMA_CONCAT_(uma_try_, __LINE__) = (expr);                                             \
  if (!UMA_CONCAT_(uma_try_, __LINE__).ok()) return UMA_CONCAT_(uma_try_, __LINE__).error(); \
  lhs = std::move(UMA_CONCAT_(uma_try_, __LINE__).value())

// Returns early from a function returning Status or Expected when a Status failed.
#define UMA_TRY(expr)                                          \
  do {                                                         \
    ::uma::Status uma_try_status_ = (expr);                    \
    if (!uma_try_status_.ok()) return uma_try_status_.error(); \
  } while (0)

#define UMA_CONCAT_(a, b) UMA_CONCAT_IMPL_(a, b)
#define UMA_CONCAT_IMPL_(a, b) a##b
