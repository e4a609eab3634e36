// Status and Result: the "invalid model" error channel.
//
// An error carries what went wrong and where: the file, the node (when there is one) and a
// detail. `message()` renders the one line the CLI prints.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace onnxtrim {

enum class ErrorCode {
  kOk = 0,
  kUsage,         // bad command line
  kIo,            // missing file, unreadable, unwritable
  kParse,         // not ONNX, truncated or corrupt protobuf
  kInvalidModel,  // undefined value, cycle, bad attribute, missing external data
  kUnsupported,   // an op the evaluator lacks, custom domain
  kMismatch,      // verification found different numbers
  kInterrupted,   // cancelled by the caller (support/cancel.h)
  kInternal,
};

class Status {
 public:
  Status() = default;
  Status(ErrorCode code, std::string detail) : code_(code), detail_(std::move(detail)) {}

  static Status ok() { return {}; }
  bool is_ok() const { return code_ == ErrorCode::kOk; }
  explicit operator bool() const { return is_ok(); }
  ErrorCode code() const { return code_; }
  const std::string& detail() const { return detail_; }
  const std::string& file() const { return file_; }
  const std::string& node() const { return node_; }

  Status& with_file(std::string f) {
    if (file_.empty()) file_ = std::move(f);
    return *this;
  }
  Status& with_node(std::string n) {
    if (node_.empty()) node_ = std::move(n);
    return *this;
  }
  // "file: node 'x': detail"
  std::string message() const;

 private:
  ErrorCode code_ = ErrorCode::kOk;
  std::string detail_;
  std::string file_;
  std::string node_;
};

template <typename T>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}         // NOLINT: implicit by design
  Result(Status status) : v_(std::move(status)) {}  // NOLINT
  bool is_ok() const { return v_.index() == 0; }
  explicit operator bool() const { return is_ok(); }
  T& value() & { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  const T& value() const& { return std::get<0>(v_); }
  T& operator*() & { return value(); }
  T* operator->() { return &value(); }
  const Status& status() const { return std::get<1>(v_); }
  Status take_status() && { return std::get<1>(std::move(v_)); }

 private:
  std::variant<T, Status> v_;
};

inline Status make_error(ErrorCode code, std::string detail) { return Status(code, std::move(detail)); }

}  // namespace onnxtrim

#define OT_RETURN_IF_ERROR(expr)     \
  do {                               \
    ::onnxtrim::Status _st = (expr); \
    if (!_st.is_ok()) return _st;    \
  } while (0)
