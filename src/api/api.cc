// The public C++ API (include/onnxtrim/onnxtrim.hpp) over the driver (src/driver/): loading and
// saving, the public Model, user rewrite callbacks as passes, errors named by file. The run's
// stages are the driver's. The CLI, the C API and the Python package all come through here.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "api/internal.h"
#include "driver/report.h"
#include "driver/driver.h"
#include "ir/clone.h"
#include "ir/printer.h"
#include "ir/scratch.h"
#include "onnx_io/onnx_io.h"
#include "passes/pass_manager.h"
#include "passes/user_rules.h"
#include "support/cancel.h"
#include "support/limits.h"
#include "support/platform.h"
#include "support/text.h"

#ifndef ONNXTRIM_VERSION
#define ONNXTRIM_VERSION "dev"
#endif

namespace onnxtrim {

const char* version() { return ONNXTRIM_VERSION; }

Error::Error(int exit_code, const std::string& message)
    : std::runtime_error(support::printable(message)), exit_code_(exit_code) {}

struct Model::Impl {
  std::unique_ptr<ir::Model> model;
  std::string path;  // the file it was loaded from ("" when parsed from memory)
};

struct ModelAccess {
  static Model wrap(std::unique_ptr<ir::Model> m) {
    auto impl = std::make_unique<Model::Impl>();
    impl->model = std::move(m);
    return Model(std::move(impl));
  }
};

namespace api {

// Runs f; a tensor past the evaluator's limits (support/limits.h) that no inner layer turned
// into a Status (the interpreter and the pass manager do) becomes the same "unsupported" error
// for every front end (CLI, C API, Python), never an internal error.
template <typename F>
auto within_limits(F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const LimitExceeded& e) {
    throw Error(kExitUnsupported, std::string("cannot evaluate: ") + e.what());
  }
}

// An error of the model that `path` holds names the file first, as the CLI's messages do.
[[noreturn]] void rethrow_naming(const Error& e, const std::string& path) {
  std::string msg = e.what();
  if (!path.empty() && e.exit_code() != kExitUsage && msg.rfind(path, 0) != 0) msg = path + ": " + msg;
  throw Error(e.exit_code(), msg);
}

ir::Model& ir_model(Model& m) { return *m.impl().model; }
const ir::Model& ir_model(const Model& m) { return *m.impl().model; }

// The user rewrite rules of o (--rewrite-rules files, callbacks) as passes.
std::vector<passes::UserPass> user_passes(const Options& o) {
  std::vector<passes::UserPass> out;
  for (const std::string& f : o.rewrite_rules) {
    auto r = passes::load_rewrite_rules(f);
    if (!r.is_ok()) throw_if_error(r.status());
    for (auto& u : r.value()) out.push_back(std::move(u));
  }
  for (const RewriteCallback& cb : o.rewriters) {
    if (cb.name.empty() || !cb.rewrite) throw Error(kExitUsage, "a rewrite callback needs a name and a function");
    auto fn = cb.rewrite;
    out.push_back(passes::callback_rule(cb.name, [fn](const ir::Model& current) -> std::unique_ptr<ir::Model> {
      Model copy = ModelAccess::wrap(ir::clone_model(current));
      if (!fn(copy)) return nullptr;
      return std::move(copy.impl().model);
    }));
  }
  return out;
}

passes::SimplifyOptions simplify_options(const Options& o) {
  passes::SimplifyOptions s = driver::simplify_options(o);
  s.user_passes = user_passes(o);
  return s;
}

onnx_io::SaveOptions save_options(const Options& o, const std::string& out_path) {
  onnx_io::SaveOptions s;
  // Options::set refuses a bad location; a C++ caller may also have assigned one directly.
  if (!o.external_location.empty()) {
    std::string why = onnx_io::external_location_problem(o.external_location, out_path);
    if (!why.empty()) throw Error(kExitUsage, "--external-location: '" + o.external_location + "' " + why);
  }
  if (o.external_data == "always") s.external = onnx_io::SaveOptions::ExternalData::kAlways;
  else if (o.external_data == "never") s.external = onnx_io::SaveOptions::ExternalData::kNever;
  else if (o.external_data == "auto") s.external = onnx_io::SaveOptions::ExternalData::kAuto;
  else throw Error(kExitUsage, "--external-data: needs auto, always or never, not '" + o.external_data + "'");
  s.location = o.external_location;
  s.size_threshold = o.external_threshold;
  if (o.progress) s.progress = [p = o.progress](uint64_t d, uint64_t t) { p("saving", d, t); };
  return s;
}

namespace {

int64_t file_size(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? static_cast<int64_t>(st.st_size) : -1;
}

}  // namespace

}  // namespace api

// ---- Model

Model::Model(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Model::Model(Model&&) noexcept = default;
Model& Model::operator=(Model&&) noexcept = default;
Model::~Model() = default;

Model Model::load(const std::string& path) {
  auto r = onnx_io::load_model(path);
  api::throw_if_error(r.is_ok() ? Status::ok() : r.status());
  auto impl = std::make_unique<Impl>();
  impl->model = std::move(r.value());
  impl->path = path;
  return Model(std::move(impl));
}

Model Model::parse(const void* data, size_t size, const std::string& base_dir) {
  auto r = onnx_io::parse_model(std::string_view(static_cast<const char*>(data), size), "<buffer>", base_dir);
  api::throw_if_error(r.is_ok() ? Status::ok() : r.status());
  auto impl = std::make_unique<Impl>();
  impl->model = std::move(r.value());
  return Model(std::move(impl));
}

Model Model::parse_text(const std::string& text) {
  auto r = onnx_io::parse_text_model(text);
  api::throw_if_error(r.is_ok() ? Status::ok() : r.status());
  auto impl = std::make_unique<Impl>();
  impl->model = std::move(r.value());
  return Model(std::move(impl));
}

Model Model::clone() const {
  auto impl = std::make_unique<Impl>();
  impl->model = ir::clone_model(*impl_->model);
  impl->path = impl_->path;
  return Model(std::move(impl));
}

void Model::save(const std::string& path, const Options& opts) const {
  api::throw_if_error(onnx_io::save_model(*impl_->model, path, api::save_options(opts, path)));
}

std::string Model::serialize() const {
  auto r = onnx_io::serialize_model(*impl_->model);
  api::throw_if_error(r.is_ok() ? Status::ok() : r.status());
  return std::move(r.value());
}

std::string Model::to_text() const { return ir::print_model(*impl_->model); }
ModelStats Model::stats() const { return compute_stats(*impl_->model); }

std::vector<std::string> Model::input_names() const {
  std::vector<std::string> out;
  for (const ir::Value* v : impl_->model->graph->inputs())
    if (!v->is_initializer()) out.push_back(v->name());
  return out;
}

std::vector<std::string> Model::output_names() const {
  std::vector<std::string> out;
  for (const ir::Value* v : impl_->model->graph->outputs()) out.push_back(v->name());
  return out;
}

// ---- runs

namespace {

// --report FILE.html: why FILE cannot be written ("" when it can), asked before anything is read
// or written, so that a run never writes OUT and then fails on its report.
std::string report_path_problem(const std::string& path, const std::vector<std::string>& models) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path p(path);
  fs::path dir = p.parent_path().empty() ? fs::path(".") : p.parent_path();
  if (!fs::is_directory(dir, ec)) return "the folder '" + dir.string() + "' does not exist";
  if (fs::is_directory(p, ec)) return "'" + path + "' is a folder";
  for (const std::string& f : models)
    if (!f.empty() && fs::weakly_canonical(p, ec) == fs::weakly_canonical(fs::path(f), ec))
      return "'" + path + "' is the model " + f;
  if (::access(dir.c_str(), W_OK) != 0) return "the folder '" + dir.string() + "' is not writable";
  return "";
}

void check_report_path(const Options& opts, const std::vector<std::string>& models) {
  if (opts.report_html.empty()) return;
  std::string why = report_path_problem(opts.report_html, models);
  if (!why.empty()) throw Error(kExitUsage, "--report " + opts.report_html + ": " + why + "; nothing was written");
}

// The page is written whole beside FILE and renamed over it: FILE is never half-written.
void write_report_html(const Options& opts, const Report& rep) {
  if (opts.report_html.empty()) return;
  const std::string& path = opts.report_html;
  const std::string tmp = path + ".tmp-" + std::to_string(::getpid());
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    f << report_html(rep);
    f.close();
    if (!f) {
      int err = errno;
      std::remove(tmp.c_str());
      throw Error(kExitIo, path + ": cannot write the HTML report: " + std::strerror(err));
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    std::remove(tmp.c_str());
    throw Error(kExitIo, path + ": cannot write the HTML report: " + std::strerror(err));
  }
}

}  // namespace

Report simplify(Model& model, const Options& opts) {
  Report rep;
  ir::Model& m = api::ir_model(model);
  const std::string& path = model.impl().path;
  check_report_path(opts, {path});
  rep.before = compute_stats(m);
  try {
    api::within_limits([&] { driver::run(m, opts, api::user_passes(opts), rep); });
  } catch (const Error& e) {
    api::rethrow_naming(e, path);
  }
  rep.after = compute_stats(m);
  write_report_html(opts, rep);  // with a failed check too: its table says which outputs differ
  if (!rep.verification.ok) throw VerificationFailed(std::move(rep), path);
  return rep;
}

namespace {
// Folded weights are computed into a scratch file in OUT's folder rather than into memory:
// saving then keeps that file as the external data (one file system, no second copy). Each
// simplify_file has a scratch file of its own (a session of its thread); the in-memory API uses
// the process's default one, in $TMPDIR or /tmp.
struct ScratchFolder {
  explicit ScratchFolder(const std::string& out_path) : session(folder_of(out_path)) {}
  static std::string folder_of(const std::string& out_path) {
    std::string dir = std::filesystem::path(out_path).parent_path().string();
    return dir.empty() ? "." : dir;
  }
  ir::scratch::Session session;  // this run's own scratch file: concurrent runs never share one
};
}  // namespace

namespace {

// The output's folder must exist and be writable before any work is done: a run of minutes
// on a large model must not end in "cannot write". So must the folder of an external-data
// location in a subfolder (--external-location weights/w.data): onnxtrim creates no folders.
void check_output_folder(const std::string& out_path, const Options& opts) {
  std::filesystem::path dir = std::filesystem::path(out_path).parent_path();
  if (dir.empty()) dir = ".";
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec))
    throw Error(kExitIo, out_path + ": cannot write: the folder " + dir.string() + " does not exist");
  if (::access(dir.c_str(), W_OK) != 0)
    throw Error(kExitIo, out_path + ": cannot write: the folder " + dir.string() + " is not writable");
  std::filesystem::path sub = std::filesystem::path(opts.external_location).parent_path();
  if (sub.empty() || opts.external_data == "never") return;
  std::filesystem::path ext_dir = dir / sub;
  if (!std::filesystem::is_directory(ext_dir, ec))
    throw Error(kExitIo, out_path + ": cannot write: the folder " + ext_dir.string() + " of --external-location '" +
                             opts.external_location + "' does not exist");
  if (::access(ext_dir.c_str(), W_OK) != 0)
    throw Error(kExitIo, out_path + ": cannot write: the folder " + ext_dir.string() + " of --external-location '" +
                             opts.external_location + "' is not writable");
}

}  // namespace

Report simplify_file(const std::string& in_path, const std::string& out_path, const Options& opts) {
  // The saving options (an external-data location the loader would refuse ...) before anything
  // is read or written.
  const onnx_io::SaveOptions save_opts = api::save_options(opts, out_path);
  check_report_path(opts, {in_path, out_path});
  Report rep;
  rep.input_path = in_path;
  rep.output_path = out_path;
  ScratchFolder scratch(out_path);  // outlives the model below, whose folded weights are in it
  support::CancelScope cancel(opts.cancel);
  if (opts.profile) platform::peak_resident_bytes(true);  // the load's peak starts here
  double t0 = driver::now_s();
  onnx_io::LoadOptions lo;
  if (opts.progress) lo.progress = [p = opts.progress](uint64_t d, uint64_t t) { p("loading", d, t); };
  auto r = onnx_io::load_model(in_path, lo);
  api::throw_if_error(r.is_ok() ? Status::ok() : r.status());
  check_output_folder(out_path, opts);  // errors of the input first
  ir::Model& m = *r.value();
  driver::end_stage(rep, opts, "load", t0);
  rep.before = compute_stats(m);
  rep.before.file_bytes = api::file_size(in_path);
  try {
    api::within_limits([&] { driver::run(m, opts, api::user_passes(opts), rep); });
  } catch (const Error& e) {
    api::rethrow_naming(e, in_path);  // errors of the model name the input file
  }
  rep.after = compute_stats(m);
  if (!rep.verification.ok) {
    write_report_html(opts, rep);  // the check's table says which outputs differ
    throw VerificationFailed(std::move(rep), in_path);
  }
  double t1 = driver::now_s();
  api::throw_if_error(onnx_io::save_model(m, out_path, save_opts));
  driver::end_stage(rep, opts, "save", t1);
  rep.after.file_bytes = api::file_size(out_path);
  write_report_html(opts, rep);
  return rep;
}

Verification verify(const Model& reference, const Model& candidate, const Options& opts) {
  support::CancelScope cancel(opts.cancel);
  Options o = opts;
  o.verify = Options::Verify::kOn;
  if (o.samples <= 0) o.samples = 3;
  std::string skipped;
  try {
    return api::within_limits([&] {
      auto checker = driver::make_checker(api::ir_model(reference), api::ir_model(candidate), o, &skipped, nullptr);
      return driver::run_check(*checker, api::ir_model(candidate), o);
    });
  } catch (const Error& e) {
    if (e.exit_code() == kExitMismatch) throw;
    api::rethrow_naming(e, reference.impl().path);
  }
}

namespace {

class ExternalBuffer final : public ir::Buffer {
 public:
  ExternalBuffer(const void* p, size_t n, std::shared_ptr<const void> owner)
      : p_(static_cast<const uint8_t*>(p)), n_(n), owner_(std::move(owner)) {}
  const uint8_t* data() const override { return p_; }
  size_t size() const override { return n_; }

 private:
  const uint8_t* p_;
  size_t n_;
  std::shared_ptr<const void> owner_;
};

ir::Tensor to_ir(const std::string& name, const Tensor& t) {
  auto dt = static_cast<ir::DataType>(t.dtype);
  if (std::string(ir::dtype_name(dt)).empty() || dt == ir::DataType::kUndefined)
    throw Error(kExitUsage, "input '" + name + "': unknown element type " + std::to_string(t.dtype));
  int64_t n = 1;
  for (int64_t d : t.shape) {
    if (d < 0) throw Error(kExitUsage, "input '" + name + "': negative dim");
    n *= d;
  }
  ir::Tensor out = ir::Tensor::shell(dt, t.shape);
  if (dt == ir::DataType::kString) {
    if (static_cast<int64_t>(t.strings.size()) != n)
      throw Error(kExitUsage, "input '" + name + "': " + std::to_string(t.strings.size()) + " strings for " +
                                  std::to_string(n) + " elements");
    out = ir::Tensor(dt, t.shape);
    out.strings() = t.strings;
    return out;
  }
  size_t need = ir::dtype_storage_bytes(dt, n);
  if (t.nbytes != need)
    throw Error(kExitUsage, "input '" + name + "': " + std::to_string(t.nbytes) + " bytes for " + std::to_string(n) +
                                " elements of " + std::string(ir::dtype_name(dt)) + " (needs " + std::to_string(need) +
                                ")");
  out.set_buffer(std::make_shared<ExternalBuffer>(t.data, t.nbytes, t.owner), 0, t.nbytes);
  return out;
}

Tensor from_ir(const ir::Tensor& t) {
  Tensor out;
  out.dtype = static_cast<int32_t>(t.dtype());
  out.shape = t.dims();
  if (t.dtype() == ir::DataType::kString) {
    out.strings = t.strings();
    return out;
  }
  out.data = t.bytes();
  out.nbytes = t.byte_size();
  out.owner = t.buffer();
  return out;
}

}  // namespace

std::map<std::string, Tensor> run(const Model& model, const std::map<std::string, Tensor>& feeds, bool fast) {
  const ir::Model& m = api::ir_model(model);
  eval::Interpreter interp(m);
  interp.set_fast_float(fast);
  try {
    api::throw_if_error(interp.check_supported());
  } catch (const Error& e) {
    api::rethrow_naming(e, model.impl().path);
  }
  std::map<std::string, ir::RuntimeValue> in;
  for (const auto& feed : feeds) {
    const std::string& name = feed.first;  // not a structured binding: clang 14 cannot capture those
    const Tensor& t = feed.second;
    bool known = false;
    for (const ir::Value* v : m.graph->inputs()) known |= v->name() == name;
    if (!known) throw Error(kExitUsage, "the model has no input named '" + name + "'");
    in[name] = ir::RuntimeValue::of(api::within_limits([&] { return to_ir(name, t); }));
  }
  for (const ir::Value* v : m.graph->inputs())
    if (!v->is_initializer() && !in.count(v->name()))
      throw Error(kExitUsage, "no value given for input '" + v->name() + "'");
  auto out = api::within_limits([&] { return interp.run(in); });
  if (!out.is_ok())
    api::rethrow_naming(Error(api::exit_code_for(out.status().code()), out.status().message()), model.impl().path);
  std::map<std::string, Tensor> res;
  for (size_t i = 0; i < out.value().size(); ++i) {
    const auto& v = out.value()[i];
    const std::string& name = m.graph->outputs()[i]->name();
    if (!v.is_tensor())
      throw Error(kExitUnsupported, "output '" + name + "' is a sequence or optional: only tensors cross the API");
    res[name] = from_ir(v.tensor);
  }
  return res;
}

void infer_shapes(Model& model, const Options& opts) {
  passes::SimplifyOptions s = api::simplify_options(opts);
  s.only = {"infer_shapes"};
  s.skip.clear();
  s.verify_each_pass = false;
  s.write_value_info = true;
  ir::Model& m = api::ir_model(model);
  s.input_shapes = driver::resolve_shapes(m, s.input_shapes);
  // A shape that changes a dim the model fixes replaces the input's declaration, as simplify
  // does; other shapes only seed the inference (the inputs stay as declared).
  std::map<std::string, std::vector<int64_t>> replacing;
  for (const auto& [name, dims] : s.input_shapes)
    for (const ir::Value* v : m.graph->inputs()) {
      if (v->name() != name || v->is_initializer() || !v->type.has_shape || v->type.dims.size() != dims.size())
        continue;
      for (size_t i = 0; i < dims.size(); ++i)
        if (v->type.dims[i].is_known() && *v->type.dims[i].value != dims[i]) replacing[name] = dims;
    }
  if (!replacing.empty()) driver::fix_input_shapes(m, replacing);
  auto r = api::within_limits([&] { return passes::simplify(m, s); });
  api::throw_if_error(r.is_ok() ? Status::ok() : r.status());
}

std::string inspect_json(const Model& model) {
  const ir::Model& m = api::ir_model(model);
  nlohmann::ordered_json j;
  j["ir_version"] = m.ir_version;
  j["producer"] = m.producer_name;
  j["producer_version"] = m.producer_version;
  nlohmann::ordered_json ops = nlohmann::ordered_json::object();
  for (const auto& o : m.opset_import) ops[o.domain.empty() ? "ai.onnx" : o.domain] = o.version;
  j["opsets"] = ops;
  auto values = [](const std::vector<const ir::Value*>& vs) {
    nlohmann::ordered_json a = nlohmann::ordered_json::array();
    for (const ir::Value* v : vs)
      a.push_back({{"name", v->name()}, {"type", v->type.is_known() ? v->type.str() : "?"}});
    return a;
  };
  std::vector<const ir::Value*> ins, outs;
  for (const ir::Value* v : m.graph->inputs())
    if (!v->is_initializer()) ins.push_back(v);
  for (const ir::Value* v : m.graph->outputs()) outs.push_back(v);
  j["inputs"] = values(ins);
  j["outputs"] = values(outs);
  ModelStats s = compute_stats(m);
  j["nodes"] = s.nodes;
  j["top_level_nodes"] = s.top_level_nodes;
  j["op_histogram"] = s.op_histogram;
  j["initializers"] = s.initializers;
  j["initializer_bytes"] = s.initializer_bytes;
  j["functions"] = m.functions.size();
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace onnxtrim
